// Damage to stored bytes in the destination: delete, truncate or replace one object, manifest,
// compaction state, job mark or ledger line, or a daily unit whole (its manifest and its object).
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { costManifestKey, costObjectKey } from '../../functions/lib/costs/sources/day-keys.ts';
import { compactionStateKey, jobMarkKey } from '../../functions/lib/destination/layout.ts';
import { monthlyKey } from './reader.ts';

export type DamageTarget =
  | 'daily-object'
  | 'daily-manifest'
  | 'daily-unit'
  | 'monthly-object'
  | 'compaction-state'
  | 'job-mark'
  | 'ledger-line';
export type DamageOp = 'delete' | 'truncate' | 'replace';

export interface Damage {
  readonly target: DamageTarget;
  readonly op: DamageOp;
  readonly ds: string;
  readonly day: string;
}

async function ledgerLine(out: string, ds: string, day: string): Promise<string | undefined> {
  const dir = join(out, 'ledger');
  const files = (await readdir(dir, { recursive: true }).catch(() => []))
    .map(String)
    .filter((f) => f.endsWith('.json'));
  return (
    files.find((f) => f.includes(day) && f.includes(ds)) ?? files.find((f) => f.includes(day)) ?? files[0]
  );
}

/** The keys damaged (none when there was nothing to damage). */
export async function applyDamage(out: string, d: Damage): Promise<string[]> {
  const damaged: string[] = [];
  for (const key of await targetKeys(out, d))
    if (key !== undefined && (await damageOne(join(out, key), d.op))) damaged.push(key);
  return damaged;
}

/** The keys a damage aims at (undefined: no ledger line to aim at). */
async function targetKeys(out: string, d: Damage): Promise<Array<string | undefined>> {
  switch (d.target) {
    case 'daily-unit':
      return [costManifestKey(d.ds, d.day), costObjectKey(d.ds, d.day)];
    case 'daily-object':
      return [costObjectKey(d.ds, d.day)];
    case 'daily-manifest':
      return [costManifestKey(d.ds, d.day)];
    case 'monthly-object':
      return [monthlyKey(d.ds, d.day.slice(0, 7))];
    case 'compaction-state':
      return [compactionStateKey('costs')];
    case 'job-mark':
      return [jobMarkKey(d.ds)];
    case 'ledger-line':
      return [await ledgerLine(out, d.ds, d.day).then((f) => f && `ledger/${f}`)];
  }
}

/** Whether there were bytes to damage. */
async function damageOne(path: string, op: DamageOp): Promise<boolean> {
  const bytes = await readFile(path).catch(() => undefined);
  if (!bytes) return false;
  if (op === 'delete') await rm(path);
  else if (op === 'truncate') await writeFile(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
  else {
    // Replaced by other bytes of the same size: a flipped run in the middle.
    const copy = Buffer.from(bytes);
    const at = Math.floor(copy.length / 2);
    for (let i = at; i < Math.min(copy.length, at + 32); i++) copy[i] = copy[i]! ^ 0x5a;
    await writeFile(path, copy);
  }
  return true;
}
