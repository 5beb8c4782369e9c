// CID's own discovery (test/fixtures/cid, run unmodified) over a stack of tenants' Glue tables: it
// scans every database of the account, so it must find exactly one FOCUS table per tenant database
// and none in the portfolio, or its consolidation view would count a tenant's rows twice.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverCid, listTableMetadata } from '../../../tools/cid/run.ts';
import { synthStack } from '../../support/synth-stack.ts';

const IDS = ['acme', 'beta-2', 'globex'];

describe("CID's discovery over a stack of tenants", () => {
  let dir: string;
  let found: Awaited<ReturnType<typeof discoverCid>>;
  let databases: Parameters<typeof discoverCid>[0];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cid-tenants-'));
    const { nested } = synthStack({
      cloudforetEndpoint: 'https://cf.example.com',
      tenants: IDS.map((id) => ({ id, secretName: `cloudforet/${id}` })),
    });
    databases = Object.assign({}, ...[...nested.values()].map((t) => listTableMetadata(t)));
    found = await discoverCid(databases, dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('finds one focus table per tenant database, and none in the portfolio', () => {
    expect(found.discovered.map((t) => `${t.database}.${t.table_name}`).sort()).toEqual([
      'cloudforet_export_acme.focus',
      'cloudforet_export_beta_2.focus',
      'cloudforet_export_globex.focus',
    ]);
  });

  it("consolidates each tenant's focus table once", () => {
    for (const id of IDS) {
      const table = `cloudforet_export_${id.replaceAll('-', '_')}`;
      expect(found.consolidationSql.split(table).length - 1, table).toBe(1);
    }
    expect(found.consolidationSql).not.toContain('portfolio');
  });

  it("finds nothing as a tenant's reader, which may not list the databases", async () => {
    const denied = await discoverCid(databases, dir, { listDatabasesDenied: true });

    expect(denied.discovered).toEqual([]);
    expect(denied.consolidationSql).toBe('');
  });
});
