// What a move into a tenant's folder rewrites (destination/move-rewrite.ts): only what the store said
// of an object (S3's ETag, a file's mtime), only where it described the source truly, and only
// where the copy is described otherwise; and the gate's proof that a copy reads back as its source.
import { describe, expect, it } from 'vitest';
import { proveCopied } from '../../functions/lib/destination/gate.ts';
import { rewriteForCopy } from '../../functions/lib/destination/move-rewrite.ts';
import { movePhase } from '../../functions/lib/destination/tenant-move.ts';

const OBJECT = 'costs/billed_date=2026-09-10/ds-a.parquet';
const DAILY = '_manifests/costs/billed_date=2026-09-10/ds-a.json';
const manifest = (etag: string) =>
  `${JSON.stringify({ table: 'costs', key: OBJECT, rows: 3, bytes: 900, sha256: 'abc', etag }, null, 2)}\n`;

describe('a manifest rewritten for its copy', () => {
  it("takes the copy's ETag when S3 gave the copy of a multipart upload a new one, and nothing else", () => {
    const source = new Map([[OBJECT, { size: 900, etag: '9b2c-2' }]]);
    const copy = new Map([[OBJECT, { size: 900, etag: '51ad' }]]);

    const rewrite = rewriteForCopy(manifest('9b2c-2'), source, copy);

    expect(rewrite?.copies).toEqual([OBJECT]);
    expect(JSON.parse(rewrite!.text)).toEqual({ ...JSON.parse(manifest('9b2c-2')), etag: '51ad' });
    expect(rewrite!.text).toBe(manifest('51ad'));
  });

  it('is left as it is when the copy keeps the ETag (an object stored whole)', () => {
    const listed = new Map([[OBJECT, { size: 900, etag: '51ad' }]]);

    expect(rewriteForCopy(manifest('51ad'), listed, listed)).toBeUndefined();
  });

  it('is left stale when it was stale at the source: the runs find it as they would have', () => {
    const source = new Map([[OBJECT, { size: 900, etag: 'ffff-2' }]]);
    const copy = new Map([[OBJECT, { size: 900, etag: '51ad' }]]);

    expect(rewriteForCopy(manifest('9b2c-2'), source, copy)).toBeUndefined();
  });

  it("records a compacted month's daily manifest as its copy is listed", () => {
    const was = { key: DAILY, size: 410, etag: 'e1' };
    const monthly = JSON.stringify({ key: null, rows: 0, sources: [{ key: OBJECT, manifest: was }] });
    const source = new Map([[DAILY, { size: 410, etag: 'e1' }]]);
    const copy = new Map([[DAILY, { size: 406, etag: 'e2' }]]);

    const rewrite = rewriteForCopy(monthly, source, copy);

    expect(rewrite?.copies).toEqual([DAILY]);
    expect(JSON.parse(rewrite!.text).sources[0].manifest).toEqual({ key: DAILY, size: 406, etag: 'e2' });
  });

  it('leaves what is not a manifest of an object alone (a job mark, a line that does not parse)', () => {
    const listed = new Map([[OBJECT, { size: 900, etag: '51ad' }]]);

    expect(rewriteForCopy('{"dataSourceId": "ds-a", "jobs": []}', listed, new Map())).toBeUndefined();
    expect(rewriteForCopy('not json', listed, new Map())).toBeUndefined();
  });
});

describe('the order of a move', () => {
  it('writes data before manifests, manifests before what derives from them, compacted months last', () => {
    const keys = [
      '_manifests/costs_monthly/billed_month=2026-09/ds-a.json',
      'compaction_state/costs.json',
      '_manifests/focus/x_billing_period=2026-09/x_charge_day=10/ds-a.json',
      '_manifests/statements/billed_month=2026-09/ws-1.r1.json',
      DAILY,
      OBJECT,
      '_destination.json',
    ];

    expect(keys.map(movePhase)).toEqual([3, 3, 2, 2, 1, 0, 0]);
  });
});

describe("the gate's proof of a copy", () => {
  it('is given only for a copy that reads back the source SHA-256', () => {
    expect(proveCopied(OBJECT, 'abc', 'abc').evidence).toContain('same SHA-256 abc');
    expect(() => proveCopied(OBJECT, 'abc', 'abd')).toThrow('no proof of a move');
    expect(() => proveCopied(OBJECT, undefined, undefined)).toThrow('no proof of a move');
  });
});
