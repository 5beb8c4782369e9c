// The move's record in the tenant's folder (`_moved-in.json`: where from, which domain, and once
// the copy is verified every source object's SHA-256) and the two listings a move compares: the
// source (not the tenants' folders, not what the stack's runs keep at the root: Step Functions' Map
// results, the lanes of a daily run across tenants) and its copy.

import type { Sink, StoredObject } from '../storage/sink.ts';
import { TENANTS_DIR } from '../tenant.ts';
import { SHARED_RUN_PREFIXES } from './layout.ts';

/** What the tenant's folder keeps of the move: `_moved-in.json`. */
export interface MoveRecord {
  readonly from: string;
  readonly domainId: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly objects?: number;
  readonly bytes?: number;
  readonly rewritten?: number;
  readonly digest?: string;
  readonly copyDigest?: string;
  /** Every source object's SHA-256 when its copy was verified: what a deletion compares. */
  readonly checksums?: Readonly<Record<string, string>>;
}

export const recordText = (r: MoveRecord) => `${JSON.stringify(r, null, 2)}\n`;

export function parseRecord(text: string | undefined): MoveRecord | undefined {
  if (text === undefined) return undefined;
  try {
    const r = JSON.parse(text) as MoveRecord;
    return typeof r.domainId === 'string' && typeof r.startedAt === 'string' ? r : undefined;
  } catch {
    return undefined;
  }
}

/** The source's objects: everything but the tenants' folders and what the stack's runs keep of no tenant. */
export async function listSource(sink: Sink): Promise<Map<string, StoredObject>> {
  const all = await sink.listObjects('');
  const shared = (k: string) =>
    k.startsWith(`${TENANTS_DIR}/`) || SHARED_RUN_PREFIXES.some((p) => k.startsWith(p));
  return new Map([...all].filter(([k]) => !shared(k)));
}

export async function listCopy(sink: Sink, target: string): Promise<Map<string, StoredObject>> {
  const listed = await sink.listObjects(target);
  return new Map([...listed].map(([k, o]) => [k.slice(target.length), o]));
}
