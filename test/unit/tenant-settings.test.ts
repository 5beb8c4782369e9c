// The `tenants` setting: every bad value named in one SettingsError, as the other settings are.
import { describe, expect, it } from 'vitest';
import { readSettings, SettingsError } from '../../infra/settings.ts';

const acme = { id: 'acme', endpoint: 'https://cf-one.example.com', secretName: 'cloudforet/acme' };
const beta = { id: 'beta-2', endpoint: 'https://cf-two.example.com/', secretName: 'cloudforet/beta' };

function problemsOf(context: Record<string, unknown>): readonly string[] {
  try {
    readSettings(context);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as SettingsError).problems;
  }
  throw new Error('readSettings accepted the context');
}

describe('the tenants setting', () => {
  it('reads an array from cdk.json, several endpoints, without cloudforetEndpoint', () => {
    const settings = readSettings({ tenants: [acme, beta] });

    expect(settings.tenants).toEqual([
      acme,
      { id: 'beta-2', endpoint: 'https://cf-two.example.com', secretName: 'cloudforet/beta' },
    ]);
    expect(settings.cloudforetEndpoint).toBe('');
  });

  it('reads the same array as JSON from -c, and cloudforetEndpoint as the default endpoint', () => {
    const settings = readSettings({
      cloudforetEndpoint: 'https://cf.example.com',
      tenants: JSON.stringify([{ id: 'acme', secretName: 'cloudforet/acme' }]),
    });

    expect(settings.tenants).toEqual([
      { id: 'acme', endpoint: 'https://cf.example.com', secretName: 'cloudforet/acme' },
    ]);
  });

  it('leaves the single-domain settings as they were without tenants', () => {
    expect(readSettings({ cloudforetEndpoint: 'https://cf.example.com' }).tenants).toBeUndefined();
  });

  it('names every bad id, the duplicate and the missing secret in one error', () => {
    const problems = problemsOf({
      tenants: [
        { ...acme, id: 'Acme_Corp', secretName: 'cloudforet/corp' },
        { ...acme, id: 'a-very-long-tenant-id-indeed', secretName: 'x' },
        acme,
        { ...beta, id: 'acme' },
        { id: 'gamma', endpoint: 'https://cf.example.com' },
      ],
    });

    expect(problems).toEqual([
      expect.stringMatching(
        /^tenants\[0\] \(Acme_Corp\): a tenant id is 1-20 lower-case letters, digits and hyphens/,
      ),
      expect.stringMatching(/^tenants\[1\] \(a-very-long-tenant-id-indeed\): a tenant id is 1-20/),
      "tenants[4] (gamma): secretName is required: the Secrets Manager secret holding the tenant's Cloudforet app (create it first, then deploy)",
      "tenants[3] (acme): the id is tenants[2]'s already; each tenant needs its own",
    ]);
  });

  it('refuses two tenants on one secret, an http endpoint, unknown keys and a missing endpoint', () => {
    const problems = problemsOf({
      tenants: [
        acme,
        { id: 'beta', endpoint: 'http://cf.example.com', secretName: 'cloudforet/acme', secretname: 'x' },
        { id: 'gamma', secretName: 'cloudforet/gamma' },
      ],
    });

    expect(problems).toEqual([
      'tenants[1] (beta): secretname is not a tenant key; did you mean secretName?',
      'tenants[1] (beta): endpoint must be an https:// URL such as https://console-v2.api.example.com (got "http://cf.example.com")',
      "tenants[2] (gamma): endpoint is required (the tenant's Cloudforet API base), or set cloudforetEndpoint as every tenant's default",
      "tenants acme and beta share the secret cloudforet/acme: each tenant's app has its own secret, or one tenant would export another's domain",
    ]);
  });

  it("reads a tenant's own alert e-mail, and refuses one that is no address", () => {
    expect(readSettings({ tenants: [{ ...acme, alertEmail: 'finops@acme.example' }] }).tenants).toEqual([
      { ...acme, alertEmail: 'finops@acme.example' },
    ]);
    expect(problemsOf({ tenants: [{ ...acme, alertEmail: 'finops' }] })).toEqual([
      'tenants[0] (acme): alertEmail must be an e-mail address (got "finops")',
    ]);
  });

  it("refuses the portfolio's name as a tenant id", () => {
    expect(problemsOf({ tenants: [{ ...acme, id: 'portfolio' }] })).toEqual([
      'tenants[0] (portfolio): portfolio is reserved: it names the database and workgroup across every tenant',
    ]);
  });

  it('refuses what is no array, and the single secretName beside tenants', () => {
    expect(problemsOf({ tenants: '{"id": "acme"}' })).toEqual([
      expect.stringMatching(/^tenants must be a non-empty array such as \[/),
    ]);
    expect(problemsOf({ tenants: '[{' })[0]).toMatch(/^tenants must be a JSON array/);
    expect(problemsOf({ tenants: [acme], secretName: 'cloudforet/app' })).toEqual([
      "secretName is the single domain's secret: with tenants, each tenant names its own (secretName in its entry)",
    ]);
  });

  it('refuses more tenants than the functions environment holds, and says what to do', () => {
    const many = Array.from({ length: 60 }, (_, i) => ({
      id: `tenant-${i}`,
      endpoint: 'https://cf.example.com',
      secretName: `cloudforet/tenants/tenant-${i}/app`,
    }));

    expect(problemsOf({ tenants: many })).toEqual([
      expect.stringMatching(
        /^tenants take \d+ bytes of the functions' environment \(EXPORT_TENANTS\), over 2500 .* split the tenants across stacks/,
      ),
    ]);
  });
});

describe('the tenantMaxConcurrency setting', () => {
  it("reads one tenant's units at once, up to backfillMaxConcurrency; unset without it", () => {
    const settings = readSettings({
      tenants: [acme, beta],
      backfillMaxConcurrency: '8',
      tenantMaxConcurrency: '2',
    });

    expect(settings.tenantMaxConcurrency).toBe(2);
    expect(readSettings({ tenants: [acme] }).tenantMaxConcurrency).toBeUndefined();
  });

  it('refuses more than backfillMaxConcurrency, and a cap without tenants', () => {
    expect(problemsOf({ tenants: [acme], tenantMaxConcurrency: '5' })).toEqual([
      "tenantMaxConcurrency (5) must be at most backfillMaxConcurrency (4), the units at once across every tenant (the unit function's reserved concurrency)",
    ]);
    expect(problemsOf({ cloudforetEndpoint: 'https://cf.example.com', tenantMaxConcurrency: '2' })).toEqual([
      "tenantMaxConcurrency caps one tenant's units at once: give tenants too (without them, backfillMaxConcurrency is the cap)",
    ]);
    expect(problemsOf({ tenants: [acme], tenantMaxConcurrency: '0' })).toEqual([
      'tenantMaxConcurrency must be a whole number from 1 to 1000 (got "0")',
    ]);
  });
});

describe('the endpointMaxConcurrency setting', () => {
  it("reads one endpoint's units at once in the daily run, up to backfillMaxConcurrency; unset without it", () => {
    const settings = readSettings({
      tenants: [acme, beta],
      backfillMaxConcurrency: '8',
      endpointMaxConcurrency: '3',
    });

    expect(settings.endpointMaxConcurrency).toBe(3);
    expect(readSettings({ tenants: [acme] }).endpointMaxConcurrency).toBeUndefined();
  });

  it('refuses more than backfillMaxConcurrency, a cap without tenants, and what is no whole number', () => {
    expect(problemsOf({ tenants: [acme], endpointMaxConcurrency: '5' })).toEqual([
      "endpointMaxConcurrency (5) must be at most backfillMaxConcurrency (4), the units at once across every tenant (the unit function's reserved concurrency)",
    ]);
    expect(problemsOf({ cloudforetEndpoint: 'https://cf.example.com', endpointMaxConcurrency: '2' })).toEqual(
      [
        'endpointMaxConcurrency caps the units at once from one Cloudforet endpoint in the daily run across tenants: give tenants too (without them, backfillMaxConcurrency is the cap)',
      ],
    );
    expect(problemsOf({ tenants: [acme], endpointMaxConcurrency: 'two' })).toEqual([
      'endpointMaxConcurrency must be a whole number from 1 to 1000 (got "two")',
    ]);
  });
});
