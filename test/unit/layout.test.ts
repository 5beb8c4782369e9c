// The destination's layout (destination/layout.ts): every key the export writes, and the only names
// the directory sink's temporary files take (storage/temp-files.ts).
import { describe, expect, it } from 'vitest';
import {
  backfillUnitsKey,
  CLAIM_KEY,
  jobMarkKey,
  ledgerKey,
  ledgerPrefix,
  manifestKey,
  manifestPrefix,
  objectKey,
  TEMP_DIR,
} from '../../functions/lib/destination/layout.ts';
import { temporaryName, temporaryPid } from '../../functions/lib/storage/temp-files.ts';

const costs = { name: 'costs', partitionKey: 'billed_date' };

describe('the destination layout', () => {
  it('puts a unit object in its table partition and its manifest under _manifests', () => {
    expect(objectKey(costs, '2026-10-01', 'ds-1')).toBe('costs/billed_date=2026-10-01/ds-1.parquet');
    expect(manifestKey(costs, '2026-10-01', 'ds-1')).toBe(
      '_manifests/costs/billed_date=2026-10-01/ds-1.json',
    );
    expect(manifestPrefix(costs)).toBe('_manifests/costs/');
  });

  it('keeps bookkeeping out of every table folder, behind a leading underscore', () => {
    expect(jobMarkKey('ds-1')).toBe('_manifests/cost-jobs/ds-1.json');
    expect(backfillUnitsKey('run-1')).toBe('_runs/costs/run-1/units.json');
    expect(CLAIM_KEY).toBe('_destination.json');
    expect(TEMP_DIR).toBe('_tmp');
  });

  it('gives each ledger line a key of its own, in the folder of its UTC day', () => {
    const table = { name: 'export_units', partitionKey: 'export_date' };
    const unit = '_manifests/costs/billed_date=2026-10-01/ds-1.json';

    const a = ledgerKey(table, '2026-10-02T23:59:59.000Z', unit);
    const b = ledgerKey(table, '2026-10-02T23:59:59.000Z', unit);

    expect(a).toMatch(
      /^ledger\/export_units\/export_date=2026-10-02\/costs~billed_date=2026-10-01~ds-1~1790985599000-[0-9a-f]{8}\.json$/,
    );
    expect(a).not.toBe(b);
    expect(a.startsWith(ledgerPrefix('export_units'))).toBe(true);
  });

  it('recognises the temporaries it names, with their process, and no other file', () => {
    const name = temporaryName('/out/costs/billed_date=2026-10-01/ds-1.parquet');

    expect(name).toMatch(/^\.ds-1\.parquet\.\d+-[0-9a-f]{8}\.tmp$/);
    expect(temporaryPid(name)).toBe(process.pid);
    expect(temporaryPid('ds-1.parquet')).toBeUndefined();
    expect(temporaryPid('notes.txt')).toBeUndefined();
  });
});
