// Archived statement versions are written once (destination/gate.ts createOnce): the statements
// function racing another run of itself, or the CLI writing working copies in another currency,
// leaves every archived file as its record describes it (the red team's case: a record saying
// USD 939.99 over a file holding JPY 144,129.08).
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PublishedStatement,
  publishStatement,
  type StatementRecord,
} from '../../functions/lib/statements/publish.ts';
import type { Statement } from '../../functions/lib/statements/render.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';

const MONTH = '2026-08';
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'statements-race-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function statement(currency: string, cost: number): Statement {
  const line = {
    workspace_id: 'workspace-aaaaaaaaaaaa',
    project_id: 'project-bbbbbbbbbbbb',
    project_name: 'Web',
    provider: 'aws',
    product: 'AmazonEC2',
    data_source_id: 'ds-cccccccccccc',
    service_account_id: 'sa-dddddddddddd',
    origin_currency: 'USD',
    cost,
  };
  return {
    name: 'workspace-aaaaaaaaaaaa',
    workspaceName: 'Prod',
    month: MONTH,
    currency,
    lines: [line],
    total: cost,
    confirmed: true,
    rates: { USD: currency === 'USD' ? 1 : 153.33 },
    rateSources: [],
  };
}

/** Every record of the month with the bytes its files hold now. */
async function archive(dir: string) {
  const records = join(dir, '_manifests', 'statements', `billed_month=${MONTH}`);
  const files = join(dir, 'statements', `billed_month=${MONTH}`);
  const out: Array<{ record: StatementRecord; held: Record<string, string> }> = [];
  for (const name of (await readdir(records)).filter((n) => n.endsWith('.json'))) {
    const record = JSON.parse(await readFile(join(records, name), 'utf8')) as StatementRecord;
    const held: Record<string, string> = {};
    for (const f of record.files)
      held[f] = createHash('sha256')
        .update(await readFile(join(files, f)))
        .digest('hex');
    out.push({ record, held });
  }
  return out;
}

describe('two statements runs racing for a month', () => {
  it('the function against the CLI in another currency: every archived file is as its record says (20 trials)', async () => {
    for (let trial = 0; trial < 20; trial++) {
      const dir = join(root, `cli-${trial}`);
      const sink = dirSink(dir);
      const now = new Date('2026-09-20T09:30:00Z');

      const [fn, cli] = await Promise.all([
        publishStatement(sink, statement('USD', 939.99), { archive: true, now }),
        publishStatement(sink, statement('JPY', 144129.08), { archive: false, now }).catch((e: Error) => e),
      ]);

      expect(fn.outcome).toBe('archived');
      expect(cli instanceof Error ? cli.message : (cli as PublishedStatement).outcome).toMatch(
        /draft|archived in USD/,
      );
      const archived = await archive(dir);
      expect(archived.map((a) => a.record.revision)).toEqual([1]);
      expect(archived[0]!.record.currency).toBe('USD');
      expect(archived[0]!.held).toEqual(archived[0]!.record.sha256);
      const csv = await readFile(
        join(dir, 'statements', `billed_month=${MONTH}`, `${fn.name}.r1.csv`),
        'utf8',
      );
      expect(csv).toContain('939.99');
    }
  });

  it('two function runs with the same figures archive one version, the other says unchanged', async () => {
    for (let trial = 0; trial < 20; trial++) {
      const dir = join(root, `fn-${trial}`);
      const sink = dirSink(dir);
      const now = new Date('2026-09-20T09:30:00Z');

      const outcomes = await Promise.all([
        publishStatement(sink, statement('USD', 939.99), { archive: true, now }),
        publishStatement(sink, statement('USD', 939.99), { archive: true, now: new Date(now.getTime() + 1) }),
      ]);

      expect(outcomes.map((o) => o.outcome).sort()).toEqual(['archived', 'unchanged']);
      const archived = await archive(dir);
      expect(archived).toHaveLength(1);
      expect(archived[0]!.held).toEqual(archived[0]!.record.sha256);
    }
  });

  it('a run stopped between record and files leaves them to the next run, which creates the missing ones', async () => {
    const dir = join(root, 'stopped');
    const sink = dirSink(dir);
    const now = new Date('2026-09-20T09:30:00Z');
    await publishStatement(sink, statement('USD', 939.99), { archive: true, now });
    await rm(join(dir, 'statements', `billed_month=${MONTH}`, 'workspace-aaaaaaaaaaaa.r1.html'));

    const again = await publishStatement(sink, statement('USD', 939.99), { archive: true, now });

    expect(again.outcome).toBe('unchanged');
    const [only] = await archive(dir);
    expect(only!.held).toEqual(only!.record.sha256);
  });
});
