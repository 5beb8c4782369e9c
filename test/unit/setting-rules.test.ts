// One rule, one place: the Lambda environment (readConfig), the CLI's flags and the CDK settings
// accept and refuse the same strings for a whole number and for the Parquet codec.
import { describe, expect, it } from 'vitest';
import { wholeNumber } from '../../cli/connection.ts';
import { readConfig } from '../../functions/lib/config.ts';
import { readSettings } from '../../infra/settings.ts';

const env = {
  CLOUDFORET_ENDPOINT: 'https://console-v2.api.example.com',
  CLOUDFORET_SECRET_ID: 'cloudforet/app',
  EXPORT_BUCKET: 'exports',
};
const endpoint = { cloudforetEndpoint: 'https://console-v2.api.example.com' };

const accepts = (f: () => unknown) => {
  try {
    f();
    return true;
  } catch {
    return false;
  }
};

describe('the same strings everywhere', () => {
  const numbers = [
    '16',
    '1',
    '64',
    '007',
    '0',
    '65',
    '0x10',
    '1e1',
    '1.0',
    '16.5',
    '-4',
    '+4',
    '1_6',
    'sixteen',
  ];

  it('for a whole number: digits only, within bounds', () => {
    const verdicts = numbers.map((text) => [
      text,
      accepts(() => readConfig({ ...env, EXPORT_CONCURRENCY: text })),
      accepts(() => wholeNumber('--concurrency', text, 4, 1, 64)),
      accepts(() => readSettings({ ...endpoint, exportConcurrency: text })),
    ]);

    expect(verdicts).toEqual(
      numbers.map((text) => [text, ...Array(3).fill(/^\d+$/.test(text) && +text >= 1 && +text <= 64)]),
    );
    expect(verdicts.filter(([, ok]) => ok).map(([text]) => text)).toEqual(['16', '1', '64', '007']);
  });

  it('for the Parquet codec: ZSTD or GZIP in any case', () => {
    const codecs = ['ZSTD', 'gzip', ' Zstd ', 'LZ4', 'SNAPPY', 'none'];

    const verdicts = codecs.map((text) => [
      accepts(() => readConfig({ ...env, PARQUET_COMPRESSION: text })),
      accepts(() => readSettings({ ...endpoint, parquetCompression: text })),
    ]);

    expect(verdicts).toEqual([
      [true, true],
      [true, true],
      [true, true],
      [false, false],
      [false, false],
      [false, false],
    ]);
  });
});
