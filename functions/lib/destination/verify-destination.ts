// The one verifier: walks the whole destination, every table, not a run's window. Every manifest
// against its object (listing, then the SHA-256 read back under `checksums`); every derived
// object (FOCUS) against the source object it names; every archived statement file against its
// record; every data object against a manifest that names it; every kept revision against the
// checksum its name carries; every compacted month against the
// daily units of its month, and the ledger and compaction_state files parsed (verify-compacted.ts).
// What it finds is reported; repairs
// are the runs' (a cost run re-exports damaged days inside Cloudforet's retention and derives
// damaged FOCUS units anew), so what the verifier still finds after them is damage no run can
// undo from Cloudforet: the caller fails loudly with it (docs/operations.md: restoring an object).
import { forEachLimit } from '../pool.ts';
import type { Sink, StoredObject } from '../storage/sink.ts';
import { MANIFESTS_DIR } from './layout.ts';
import { objectDifference } from './object-check.ts';
import {
  checkBookkeeping,
  checkCompactedMonth,
  dailyIndex,
  type Finding,
  type UnitFields,
} from './verify-compacted.ts';

export type { Finding };

export interface VerifyReport {
  readonly location: string;
  /** Manifests read (every table's units and every statement record). */
  readonly manifests: number;
  /** Data objects compared with their manifests (size and ETag; SHA-256 under checksums). */
  readonly objects: number;
  readonly checksummed: number;
  /** Derived objects (FOCUS, compacted months) compared with the source objects they name. */
  readonly derived: number;
  /** Archived statement files compared with their records. */
  readonly statementFiles: number;
  /** Ledger and compaction_state files read, every line parsed. */
  readonly bookkeeping: number;
  readonly findings: readonly Finding[];
}

interface Manifest extends UnitFields {
  readonly key?: string | null;
  readonly bytes?: number;
  readonly sha256?: unknown;
  readonly etag?: string;
  readonly mtimeMs?: number;
  readonly sourceKey?: string | null;
  readonly sourceSha256?: string;
  readonly files?: readonly string[];
}

/**
 * Folders that hold no table data: manifests, the ledger (append-only lines), temporaries, alerts,
 * the compaction state (one line a daily table, no manifest).
 */
const NOT_DATA = /^(_[^/]*|ledger|compaction_state)\//;

/** A kept revision: `<table>_revisions/…/<name>~<sha256 16>.parquet` (layout.ts revisionKey). */
const REVISION = /^[a-z_]+_revisions\/.*~([0-9a-f]{16})\.parquet$/;

/**
 * `signal` stops the walk (SIGINT, SIGTERM, a Lambda's deadline): no object is started after it, the
 * read in progress is ended, and the call rejects with the signal's reason. A stopped walk reports
 * nothing: half a verification would read as "all as recorded".
 */
export async function verifyDestination(
  sink: Sink,
  opts: { readonly checksums: boolean; readonly signal?: AbortSignal },
): Promise<VerifyReport> {
  const { signal } = opts;
  signal?.throwIfAborted();
  const [manifestKeys, objects] = await Promise.all([sink.list(`${MANIFESTS_DIR}/`), sink.listObjects('')]);
  const manifests = new Map<string, Manifest>();
  await forEachLimit(
    manifestKeys.filter((k) => k.endsWith('.json')),
    16,
    async (key) => {
      const text = await sink.read(key);
      try {
        const m = text === undefined ? undefined : (JSON.parse(text) as Manifest);
        if (m && typeof m === 'object') manifests.set(key, m);
      } catch {
        // not a manifest of ours (a job mark is JSON too): nothing to compare
      }
    },
  );
  const findings: Finding[] = [];
  const counts = { objects: 0, checksummed: 0, derived: 0, statementFiles: 0 };
  const named = new Set<string>();
  signal?.throwIfAborted();
  const { files: bookkeeping, states } = await checkBookkeeping(sink, [...objects.keys()], findings, signal);
  const daily = dailyIndex(manifests);
  await forEachLimit([...manifests], 8, async ([key, m]) => {
    signal?.throwIfAborted();
    if (Array.isArray(m.files) && m.sha256 && typeof m.sha256 === 'object') {
      await checkRecord(sink, key, m, objects, findings, counts, opts.checksums, signal);
      for (const f of m.files) named.add(recordFileKey(key, f));
      return;
    }
    if (typeof m.key !== 'string' || typeof m.bytes !== 'number') return;
    named.add(m.key);
    counts.objects++;
    if (opts.checksums && typeof m.sha256 === 'string') counts.checksummed++;
    const described = { ...m, bytes: m.bytes, sha256: typeof m.sha256 === 'string' ? m.sha256 : undefined };
    const why = await objectDifference(sink, described, m.key, objects.get(m.key), opts.checksums, signal);
    if (why) findings.push({ key: m.key, why });
    if (m.sourceKey !== undefined) checkDerived(key, m, manifests, findings, counts);
    if (Array.isArray(m.sources)) {
      counts.derived++;
      checkCompactedMonth(key, m, daily, states, findings);
    }
  });
  for (const key of objects.keys()) {
    const table = key.split('/')[0] ?? '';
    const revision = REVISION.exec(key);
    if (revision) {
      // A revision is named by its bytes' checksum (destination/gate.ts keepRevision); it has no manifest.
      if (!opts.checksums || !sink.sha256) continue;
      signal?.throwIfAborted();
      const sha = await sink.sha256(key, { signal });
      if (!sha?.startsWith(revision[1]!)) findings.push({ key, why: 'revision-mismatch' });
      continue;
    }
    const isData = !NOT_DATA.test(key) && key.includes('/') && table !== 'statements';
    if (isData && !named.has(key)) findings.push({ key, why: 'no-manifest' });
  }
  findings.sort((a, b) => a.key.localeCompare(b.key));
  return { location: sink.location, manifests: manifests.size, ...counts, bookkeeping, findings };
}

/** A derived object's manifest names its source's object and checksum: the source's manifest must agree. */
function checkDerived(
  key: string,
  m: Manifest,
  manifests: ReadonlyMap<string, Manifest>,
  findings: Finding[],
  counts: { derived: number },
): void {
  counts.derived++;
  if (m.sourceKey === null || m.sourceKey === undefined) return;
  const source = manifests.get(`${MANIFESTS_DIR}/${m.sourceKey.replace(/\.parquet$/, '.json')}`);
  if (!source || source.key !== m.sourceKey || source.sha256 !== m.sourceSha256) {
    findings.push({ key: typeof m.key === 'string' ? m.key : key, why: 'stale-derivation' });
  }
}

/** `_manifests/statements/billed_month=M/x.r1.json` + `x.r1.csv` -> `statements/billed_month=M/x.r1.csv`. */
function recordFileKey(recordKey: string, file: string): string {
  const folder = recordKey.slice(MANIFESTS_DIR.length + 1, recordKey.lastIndexOf('/') + 1);
  return `${folder}${file}`;
}

async function checkRecord(
  sink: Sink,
  key: string,
  m: Manifest,
  objects: ReadonlyMap<string, StoredObject>,
  findings: Finding[],
  counts: { statementFiles: number },
  checksums: boolean,
  signal?: AbortSignal,
): Promise<void> {
  const sums = m.sha256 as Readonly<Record<string, string>>;
  for (const file of m.files ?? []) {
    const fileKey = recordFileKey(key, file);
    counts.statementFiles++;
    if (!objects.has(fileKey)) {
      findings.push({ key: fileKey, why: 'missing' });
      continue;
    }
    if (!checksums || !sink.sha256 || !sums[file]) continue;
    if ((await sink.sha256(fileKey, { signal })) !== sums[file])
      findings.push({ key: fileKey, why: 'record-mismatch' });
  }
}

/** One line for people: what was checked and what was found. */
export function describeVerify(r: VerifyReport): string[] {
  return [
    `  verified ${r.location}: ${r.manifests} manifests, ${r.objects} objects (${r.checksummed} by SHA-256), ` +
      `${r.derived} derived units against their sources, ${r.statementFiles} archived statement files, ` +
      `${r.bookkeeping} ledger and compaction_state files: ` +
      `${r.findings.length === 0 ? 'all as recorded' : `${r.findings.length} not as recorded`}`,
    ...r.findings.map((f) => `  DAMAGED ${f.key}: ${f.why}`),
  ];
}
