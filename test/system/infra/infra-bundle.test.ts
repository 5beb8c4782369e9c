// The one real synth: esbuild bundles every function (no Docker, no network), CDK's built-in
// CloudFormation validation runs, and each bundle is imported by a fresh Node process.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudforetExportStack } from '../../../infra/cloudforet-export-stack.ts';
import { ESM_REQUIRE_BANNER } from '../../../infra/export-function.ts';
import { readSettings } from '../../../infra/settings.ts';

const run = promisify(execFile);
const NAMES = [
  'BackfillFinish',
  'BackfillPlan',
  'BackfillSummary',
  'BackfillUnit',
  'CostExport',
  'FreshnessCheck',
  'InventoryExport',
  'ReportsAlerts',
  'ReportsStatements',
];

/** Modules the bundle still loads at run time, other than Node's own. */
function externalModules(code: string): string[] {
  const patterns = [
    /\bimport\s*[\w$*{},\s]*?from\s*["']([^"']+)["']/g,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\(\s*["']([^"']+)["']\s*\)/g,
  ];
  const names = patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => m[1]!));
  const isBuiltin = (name: string) => name.startsWith('node:') || builtinModules.includes(name);
  return [...new Set(names.filter((name) => !isBuiltin(name)))].sort();
}

/** Imports a bundle and calls its handler with no configuration at all. */
const IMPORT_AND_CALL = `
const mod = await import(process.argv[1]);
let error;
try {
  await mod.handler({}, { awsRequestId: 'bundle-test' });
} catch (e) {
  error = { name: e.name, code: e.code, message: e.message };
}
console.log(JSON.stringify({ handler: typeof mod.handler, exports: Object.keys(mod), error }));
`;

describe('a real synth that bundles the functions', () => {
  let outdir: string;
  let template: { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
  let bundles: Map<string, string>;
  beforeAll(() => {
    outdir = mkdtempSync(join(tmpdir(), 'cdk-bundle-'));
    const app = new App({ outdir });
    new CloudforetExportStack(app, 'Export', {
      settings: readSettings({ cloudforetEndpoint: 'https://cf.example.com' }),
    });
    app.synth();
    template = JSON.parse(readFileSync(join(outdir, 'Export.template.json'), 'utf8'));
    bundles = new Map(
      Object.entries(template.Resources)
        .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
        .map(([id, r]) => {
          const key = (r.Properties.Code as { S3Key: string }).S3Key;
          return [id.replace(/Function[0-9A-F]{8}$/, ''), join(outdir, `asset.${key.replace(/\.zip$/, '')}`)];
        }),
    );
  }, 120_000);
  afterAll(() => {
    rmSync(outdir, { recursive: true, force: true });
  });

  it('passes the built-in CloudFormation validation with no findings', () => {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));

    expect(report.pluginReports.flatMap((r: { violations?: unknown[] }) => r.violations ?? [])).toEqual([]);
  });

  it('bundles every entry', () => {
    expect([...bundles.keys()].sort()).toEqual(NAMES);
  });

  it.each(NAMES)(
    '%s is one ESM file with its source map, the require banner and the AWS SDK inside',
    (name) => {
      const dir = bundles.get(name)!;

      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');

      expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
      expect(code.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
      expect(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/.test(code)).toBe(true);
      // Only the SDK's optional SigV4a signers stay outside, behind try/catch: unused here.
      expect(externalModules(code)).toEqual(['@aws-sdk/signature-v4-crt', '@aws-sdk/signature-v4a']);
    },
  );

  it.each(NAMES)(
    '%s loads in a fresh Node process, exports handler and refuses to run unconfigured by name',
    async (name) => {
      const entry = pathToFileURL(join(bundles.get(name)!, 'index.mjs')).href;

      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', IMPORT_AND_CALL, entry], {
        cwd: tmpdir(),
        env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '--enable-source-maps' },
        timeout: 20_000,
      });

      const result = JSON.parse(stdout);
      expect(result).toMatchObject({ handler: 'function', exports: ['handler'] });
      expect(result.error).toMatchObject({ name: 'ConfigError', code: 'CONFIG_INVALID' });
      expect(result.error.message).toContain('CLOUDFORET_ENDPOINT is not set');
    },
  );
});
