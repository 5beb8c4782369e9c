// The README's figures are the product's: the alarm and function counts from the synthesized
// template, and the performance ratios and size from the benchmark's last recorded run in
// docs/performance.md.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { synth } from '../../support/synth-stack.ts';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
/** One synth for the counts: a synth takes a second or two. */
const TEMPLATE = synth();
const PERFORMANCE = readFileSync(new URL('../../../docs/performance.md', import.meta.url), 'utf8');
const WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
];

/** A row of the bench's stage table: its rows/s and MB per million rows. */
function stage(name: string): { rowsPerSecond: number; mbPerMillion: number } {
  const line = PERFORMANCE.split('\n').find((l) => l.startsWith(`| ${name} `));
  expect(line, name).toBeDefined();
  const cells = line!.split('|').map((c) => c.trim());
  return { rowsPerSecond: Number(cells[2]!.replaceAll(',', '')), mbPerMillion: Number(cells[6]) };
}

describe("the README's figures", () => {
  it('count the alarms the synthesized stack has', () => {
    const alarms = Object.keys(TEMPLATE.findResources('AWS::CloudWatch::Alarm')).length;

    expect(README).toContain(`${WORDS[alarms]} CloudWatch alarms ($0.10 a month each)`);
  });

  it('count the functions the synthesized stack has, which serve every tenant', () => {
    const functions = Object.values(TEMPLATE.findResources('AWS::Lambda::Function')).filter((f) =>
      Object.hasOwn(f.Properties?.Environment?.Variables ?? {}, 'CLOUDFORET_ENDPOINT'),
    ).length;

    expect(README).toContain(`The same ${WORDS[functions]} functions serve every tenant`);
  });

  it("give the speed and size against parquetjs-lite of the bench's last recorded run", () => {
    const baseline = stage('baseline: parquetjs-lite as writer');
    const s3 = stage('**pipeline → S3 (s3rver), ZSTD**');
    const dir = stage('pipeline → local directory');
    const ratio = (a: number, b: number) => (a / b).toFixed(1);

    expect(README).toContain(
      `About ${ratio(s3.rowsPerSecond, baseline.rowsPerSecond)}–${ratio(dir.rowsPerSecond, baseline.rowsPerSecond)}× faster and ${ratio(baseline.mbPerMillion, s3.mbPerMillion)}× smaller than parquetjs-lite`,
    );
    // The S3 line's bytes are the recorded run's, checked by test/unit/bench-record.test.ts.
  });
});
