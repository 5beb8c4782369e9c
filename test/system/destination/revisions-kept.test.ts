// The adversary's invariant (e), "nothing a reader could read is lost" (harness/adversary/
// invariants.ts checkRevisionsKept), and the gate's keeping it depends on (destination/gate.ts
// keepRevision): an object replaced without its revision is found; one kept is not; bytes that are
// not the manifest's go to _damaged/, outside every table, and a rerun writes no second copy.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keepRevision } from '../../../functions/lib/destination/gate.ts';
import { revisionKey } from '../../../functions/lib/destination/layout.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { checkRevisionsKept, InvariantViolation } from '../../../harness/adversary/invariants.ts';

const KEY = 'costs/billed_date=2026-09-10/ds-1.parquet';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'revisions-kept-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('nothing a reader could read is lost', () => {
  it('an object replaced with no revision kept is found', async () => {
    const sink = dirSink(dir);
    await sink.put(KEY, 'first version', 'application/octet-stream');
    const readable = await checkRevisionsKept(dir, new Map());
    await sink.put(KEY, 'second version', 'application/octet-stream');

    const check = checkRevisionsKept(dir, readable);

    await expect(check).rejects.toBeInstanceOf(InvariantViolation);
    await expect(check).rejects.toThrow(/revision-lost\[costs\]/);
  });

  it('an object kept by the gate before its replacement is not', async () => {
    const sink = dirSink(dir);
    await sink.put(KEY, 'first version', 'application/octet-stream');
    const readable = await checkRevisionsKept(dir, new Map());

    const kept = await keepRevision(sink, KEY, sha('first version'));
    const again = await keepRevision(sink, KEY, sha('first version'));
    await sink.put(KEY, 'second version', 'application/octet-stream');

    expect(kept).toEqual({
      key: revisionKey(KEY, sha('first version')),
      sha256: sha('first version'),
      bytes: 13,
    });
    expect(again).toEqual(kept);
    expect(await sink.read(kept!.key)).toBe('first version');
    expect((await checkRevisionsKept(dir, readable)).size).toBe(2);
  });

  it("bytes that are not the manifest's are kept under _damaged/, outside the revisions table", async () => {
    const sink = dirSink(dir);
    await sink.put(KEY, 'damaged bytes', 'application/octet-stream');

    const kept = await keepRevision(sink, KEY, sha('what the manifest records'));

    expect(kept?.key).toBe(`_damaged/${revisionKey(KEY, sha('damaged bytes'))}`);
    expect(await sink.list('costs_revisions/')).toEqual([]);
    expect(await sink.read(kept!.key)).toBe('damaged bytes');
  });
});
