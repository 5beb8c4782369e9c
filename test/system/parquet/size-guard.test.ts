// The figures of the export that do not depend on the machine's speed: bytes per million rows,
// row groups and pages of each table the cost run writes from the bench's seeded world, smaller.
// They fail here when they grow beyond docs/size-baseline.json, which changes only on purpose.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  describeAgainst,
  growthBeyond,
  measureSeededWorld,
  SIZE_BASELINE_FILE,
  type SizeFigures,
  type TableFigures,
} from '../../../tools/bench/size-figures.ts';

const REMEDY =
  'the export writes more than docs/size-baseline.json allows. Find the column that grew ' +
  '(DuckDB: SELECT path_in_schema, sum(total_compressed_size) FROM parquet_metadata(…) GROUP BY 1). ' +
  'If the growth is meant (the rows hold more), run `npm run size-baseline` and commit the file alone, ' +
  'saying why.';

describe('the seeded world against docs/size-baseline.json', () => {
  // ~14 s of CPU (an export of 104,000 rows, its FOCUS pass and compaction); more on a busy machine.
  it('writes no table larger by more than 2 % a million rows, nor with more row groups or pages', async () => {
    const baseline = (JSON.parse(readFileSync(SIZE_BASELINE_FILE, 'utf8')) as { tables: SizeFigures }).tables;

    const now = await measureSeededWorld();

    process.stderr.write(`size guard:\n  ${describeAgainst(baseline, now).join('\n  ')}\n`);
    expect(growthBeyond(baseline, now), `size guard: ${REMEDY}`).toEqual([]);
  }, 180_000);
});

describe('the size comparison', () => {
  const costs: TableFigures = {
    objects: 4,
    rows: 120_000,
    bytes: 3_000_000,
    bytesPerMillionRows: 25_000_000,
    rowGroups: 8,
    dataPages: 200,
    dictionaryPages: 150,
  };
  const baseline: SizeFigures = { costs };

  it('lets bytes up to 2 % over the baseline through, and fewer pages', () => {
    const now = { costs: { ...costs, bytesPerMillionRows: 25_500_000, dataPages: 190 } };

    expect(growthBeyond(baseline, now)).toEqual([]);
  });

  it('names a table whose bytes per million rows grew by more than 2 %', () => {
    const now = { costs: { ...costs, bytesPerMillionRows: 25_510_000 } };

    expect(growthBeyond(baseline, now)).toEqual([
      "costs: 25,510,000 bytes per million rows, 2.0 % over the baseline's 25,000,000",
    ]);
  });

  it('names one more row group or page, and a table new or gone', () => {
    const now = { focus: costs, costs: { ...costs, rowGroups: 9, dictionaryPages: 151 } };

    expect(growthBeyond({ ...baseline, budgets: costs }, now)).toEqual([
      'costs: rowGroups 9, the baseline 8',
      'costs: dictionaryPages 151, the baseline 150',
      'budgets: no longer written',
      'focus: not in the baseline',
    ]);
  });
});
