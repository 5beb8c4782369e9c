// The import rules are an allow-list generated from one ordered list of layers
// (tools/import-layers.cjs): planted into a copy of the folders, an upward import and a sideways
// one (between two layers on the same level) are both refused, and so is a CLI import below the
// faces (the runtime included), while an import the list allows passes.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type IFlattenedRuleSet, type IViolation } from 'dependency-cruiser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const load = createRequire(import.meta.url);

interface Layer {
  name: string;
  path: string;
  uses: string[] | 'below';
  siblings?: string[];
  why: string;
}

const { allowedRules } = load('../../tools/import-layers.cjs') as {
  allowedRules: (levels: Layer[][]) => unknown[];
};

const config = load('../../.dependency-cruiser.cjs') as {
  allowed: IFlattenedRuleSet['allowed'];
  allowedSeverity: IFlattenedRuleSet['allowedSeverity'];
  forbidden: IFlattenedRuleSet['forbidden'];
};

/** A fixture tree: file (from the root) -> the relative imports it makes. */
const TREE: Record<string, string[]> = {
  'functions/lib/dates.ts': [],
  'functions/lib/storage/sink.ts': ['../dates.ts'],
  'functions/lib/parquet/row-writer.ts': ['../storage/sink.ts', '../published/read-objects.ts'],
  'functions/lib/published/read-objects.ts': ['../storage/sink.ts'],
  'functions/lib/tables/costs.ts': ['../parquet/row-writer.ts'],
  'functions/lib/export/listing-export.ts': ['../tables/costs.ts', '../alerts/run.ts'],
  'functions/lib/alerts/run.ts': ['../published/read-objects.ts'],
  'functions/lib/cloudforet/client.ts': ['../published/read-objects.ts'],
  'functions/lib/faces/costs.ts': ['../tables/costs.ts', '../dates.ts'],
  'cli/costs-command.ts': ['../functions/lib/faces/costs.ts', './progress.ts'],
  'cli/progress.ts': ['../functions/lib/dates.ts', '../functions/lib/storage/sink.ts'],
};

let root: string;
let violations: IViolation[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'import-layers-'));
  for (const [file, imports] of Object.entries(TREE)) {
    await mkdir(dirname(join(root, file)), { recursive: true });
    const text = imports.map((path, i) => `import { x${i} } from '${path}';\n`).join('');
    await writeFile(join(root, file), `${text}export const x = 1;\n`);
  }
  const ruleSet = {
    allowed: config.allowed,
    allowedSeverity: config.allowedSeverity,
    forbidden: config.forbidden,
  };
  const result = await cruise(['functions', 'cli'], {
    baseDir: root,
    validate: true,
    ruleSet,
    tsPreCompilationDeps: true,
  });
  violations = typeof result.output === 'string' ? [] : result.output.summary.violations;
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The planted imports refused, as "from -> to". */
const refused = () => violations.map((v) => `${v.from} -> ${v.to}`).sort();

describe('the import layers', () => {
  it('refuse an upward import (export -> alerts) and a sideways one (parquet -> published)', () => {
    expect(refused()).toContain('functions/lib/export/listing-export.ts -> functions/lib/alerts/run.ts');
    expect(refused()).toContain(
      'functions/lib/parquet/row-writer.ts -> functions/lib/published/read-objects.ts',
    );
  });

  it('refuse a CLI import below the faces, the runtime too (cli -> dates, cli -> storage)', () => {
    expect(refused()).toContain('cli/progress.ts -> functions/lib/dates.ts');
    expect(refused()).toContain('cli/progress.ts -> functions/lib/storage/sink.ts');
  });

  it('refuse cloudforet -> published, and nothing that the list allows', () => {
    expect(refused()).toEqual([
      'cli/progress.ts -> functions/lib/dates.ts',
      'cli/progress.ts -> functions/lib/storage/sink.ts',
      'functions/lib/cloudforet/client.ts -> functions/lib/published/read-objects.ts',
      'functions/lib/export/listing-export.ts -> functions/lib/alerts/run.ts',
      'functions/lib/parquet/row-writer.ts -> functions/lib/published/read-objects.ts',
    ]);
    expect(violations.map((v) => v.rule.name)).toEqual(Array(5).fill('not-in-allowed'));
  });
});

describe('the list of layers', () => {
  const layer = (name: string, uses: string[], siblings?: string[]): Layer => ({
    name,
    path: `^${name}/`,
    uses,
    siblings,
    why: 'a test',
  });

  it('refuses a layer that uses one above it', () => {
    const levels = [[layer('runtime', [])], [layer('storage', ['parquet'])], [layer('parquet', ['storage'])]];

    expect(() => allowedRules(levels)).toThrow(
      'import layers: storage (level 1) may not use parquet (level 2)',
    );
  });

  it('refuses a layer on the same level unless it is a named sibling', () => {
    const sideways = [[layer('runtime', [])], [layer('storage', ['parquet']), layer('parquet', [])]];
    const named = [
      [layer('runtime', [])],
      [layer('storage', ['parquet'], ['parquet']), layer('parquet', [])],
    ];

    expect(() => allowedRules(sideways)).toThrow(
      'import layers: storage (level 1) may not use parquet (level 1)',
    );
    expect(allowedRules(named)).toHaveLength(3);
  });
});
