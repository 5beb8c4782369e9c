// FOCUS_GLUE_DATABASE, the database whose focus table's partitions the cost run keeps: read by
// readConfig (optional, a Glue name), and narrowed to the tenant's own database for a tenant's
// invocation (the name the tenant lake gives its database: infra/tenant-lake.ts re-exports it).
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../functions/lib/config.ts';
import { connectFocusCatalog } from '../../functions/lib/lambda/connect-glue.ts';
import { tenantScope } from '../../functions/lib/lambda/tenant-scope.ts';
import { encodeTenants, tenantDatabaseName } from '../../functions/lib/tenant.ts';

const BASE = {
  CLOUDFORET_ENDPOINT: 'https://cf.example.com',
  CLOUDFORET_SECRET_ID: 'cloudforet/app',
  EXPORT_BUCKET: 'lake',
  EXPORT_PREFIX: 'cloudforet',
};

describe('FOCUS_GLUE_DATABASE', () => {
  it('is optional: without it the run keeps no catalog', () => {
    const config = readConfig(BASE);

    expect(config.focusGlueDatabase).toBeUndefined();
    expect(connectFocusCatalog(config)).toBeUndefined();
  });

  it("gives the catalog of the destination's root", () => {
    const catalog = connectFocusCatalog(readConfig({ ...BASE, FOCUS_GLUE_DATABASE: 'cloudforet_export' }));

    expect(catalog?.root).toBe('s3://lake/cloudforet/');
    expect(
      connectFocusCatalog(readConfig({ ...BASE, EXPORT_PREFIX: '', FOCUS_GLUE_DATABASE: 'x' }))?.root,
    ).toBe('s3://lake/');
  });

  it('refuses a name Glue would not take', () => {
    expect(() => readConfig({ ...BASE, FOCUS_GLUE_DATABASE: 'Cloudforet-Export' })).toThrow(
      /FOCUS_GLUE_DATABASE must be a Glue database name/,
    );
  });

  it("becomes the tenant's own database, as its lake names it, and its folder the root", () => {
    const env = {
      ...BASE,
      CLOUDFORET_ENDPOINT: undefined,
      CLOUDFORET_SECRET_ID: undefined,
      FOCUS_GLUE_DATABASE: 'cloudforet_export',
      EXPORT_TENANTS: encodeTenants(
        new Map([
          ['acme', { endpoint: 'https://a.example.com', secretId: 'cloudforet/acme' }],
          ['beta-2', { endpoint: 'https://b.example.com', secretId: 'cloudforet/beta-2' }],
        ]),
      ),
    };

    for (const id of ['acme', 'beta-2']) {
      const scoped = tenantScope(env, { tenant: id });
      expect(scoped.env.FOCUS_GLUE_DATABASE).toBe(tenantDatabaseName('cloudforet_export', id));
      expect(connectFocusCatalog(readConfig(scoped.env))?.root).toBe(`s3://lake/cloudforet/tenants/${id}/`);
    }
    expect(tenantScope(env, { tenant: 'beta-2' }).env.FOCUS_GLUE_DATABASE).toBe('cloudforet_export_beta_2');
    // A function given no database keeps none for any tenant.
    expect(
      tenantScope({ ...env, FOCUS_GLUE_DATABASE: undefined }, { tenant: 'acme' }).env.FOCUS_GLUE_DATABASE,
    ).toBe(undefined);
  });
});
