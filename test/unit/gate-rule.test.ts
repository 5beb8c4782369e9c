// One gate for destructive writes (functions/lib/destination/gate.ts): no other module removes an
// object or makes a conditional create, so a new table or a new path cannot forget the rule.
// The sinks themselves implement the two verbs; everything else goes through the gate.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { proveDayEmpty } from '../../functions/lib/destination/gate.ts';

const ROOT = join(import.meta.dirname, '../..');
const GATE = 'functions/lib/destination/gate.ts';
/** The sinks implement remove and createIfAbsent; the gate calls them. */
const ALLOWED = new Set([
  GATE,
  'functions/lib/storage/sink.ts',
  'functions/lib/storage/s3-sink.ts',
  'functions/lib/storage/dir-sink.ts',
]);

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name).slice(ROOT.length + 1));
}

/** Calls of a sink's destructive verbs: `.remove(` and `.createIfAbsent(`, however the sink is named. */
const DESTRUCTIVE = /\.\s*(remove|createIfAbsent)\s*\(/g;

describe('the one gate', () => {
  it('no module outside the gate calls remove or createIfAbsent on a sink', async () => {
    const offenders: string[] = [];
    for (const file of [...(await sources('functions')), ...(await sources('cli'))]) {
      if (ALLOWED.has(file)) continue;
      const text = await readFile(join(ROOT, file), 'utf8');
      for (const m of text.matchAll(DESTRUCTIVE)) {
        const line = text.slice(0, m.index).split('\n').length;
        offenders.push(`${file}:${line} ${m[0]}`);
      }
    }

    expect(offenders).toEqual([]);
  });

  it('the scan sees a planted call (it can fail)', () => {
    const planted = 'await deps.sink.remove(key);\nawait sink . createIfAbsent(k, b, t);';

    expect([...planted.matchAll(DESTRUCTIVE)].map((m) => m[1])).toEqual(['remove', 'createIfAbsent']);
  });

  it('a Proof is built only inside the gate (no cast to Proof elsewhere)', async () => {
    const casts: string[] = [];
    for (const file of [...(await sources('functions')), ...(await sources('cli'))]) {
      if (file === GATE) continue;
      if (/as\s+Proof\b/.test(await readFile(join(ROOT, file), 'utf8'))) casts.push(file);
    }

    expect(casts).toEqual([]);
  });

  it("a cost day is proven empty only by an analyze answer that shows the month's other days and not it", () => {
    const codeOf = (days: Array<{ date: string; rows: number }>, complete = true) => {
      try {
        return proveDayEmpty({ what: 'ds-a 2026-08-02', date: '2026-08-02', month: { complete, days } })
          .evidence;
      } catch (error) {
        return (error as { code: string }).code;
      }
    };

    expect(codeOf([])).toBe('REMOVAL_UNPROVEN');
    expect(
      codeOf([
        { date: '2026-08-02', rows: 3 },
        { date: '2026-08-01', rows: 9 },
      ]),
    ).toBe('EMPTY_ANSWER_CONTRADICTED');
    expect(
      codeOf([
        { date: '2026-08-01', rows: 9 },
        { date: '2026-08-03', rows: 4 },
      ]),
    ).toMatch(/rows on 2 other day\(s\) of the month/);
    // The same days from an answer cut at a page (its later pages not known) prove nothing.
    expect(
      codeOf(
        [
          { date: '2026-08-01', rows: 9 },
          { date: '2026-08-03', rows: 4 },
        ],
        false,
      ),
    ).toBe('REMOVAL_UNPROVEN');
  });
});
