// The import layers, in one ordered list (bottom first), and the dependency-cruiser `allowed`
// rules generated from it (.dependency-cruiser.cjs). A layer imports its own files, the runtime
// (functions/lib/*.ts, input/ and redact/: below everything) and the layers its `uses` names, each of which must sit on
// a lower level or be one of its named `siblings` (a layer on the same level). `uses: 'below'` is
// every lower level. `runtime: false` takes even the runtime only through the layers it names (the
// CLI: faces only). docs/code-layout.md states the same order.
const lib = '^functions/lib/';

/** @typedef {{ name: string, path: string, uses: string[] | 'below', siblings?: string[], runtime?: false, why: string }} Layer */

/** @type {Layer[][]} bottom first */
const LEVELS = [
  [
    {
      name: 'runtime',
      path: `${lib}(?:(?:input|redact)/)?[^/]+[.]ts$`,
      uses: [],
      why: 'config, log, errors, dates, pool, input rules, the redactor: import nothing of the lib',
    },
  ],
  [
    { name: 'cloudforet', path: `${lib}cloudforet/`, uses: [], why: 'cloudforet talks HTTP only' },
    { name: 'storage', path: `${lib}storage/`, uses: [], why: 'storage moves bytes; it knows no Parquet' },
    {
      name: 'focus/rows',
      path: `${lib}focus/rows/`,
      uses: [],
      why: "a FOCUS row's values from one cost row: pure functions, no I/O",
    },
  ],
  [
    {
      name: 'destination',
      path: `${lib}destination/`,
      uses: ['storage'],
      why: "the destination's rules (keys, manifests, claim, gate, verifier) over any sink",
    },
  ],
  [
    {
      name: 'parquet',
      path: `${lib}parquet/`,
      uses: ['storage'],
      why: 'the encoder knows columns, not tables',
    },
    {
      name: 'published',
      path: `${lib}published/`,
      uses: ['destination', 'storage'],
      why: 'reads published objects through a sink',
    },
  ],
  [
    {
      name: 'tables',
      path: `${lib}tables/`,
      uses: ['cloudforet', 'focus/rows', 'parquet'],
      why: 'column lists are data',
    },
  ],
  [
    {
      name: 'export',
      path: `${lib}export/`,
      uses: ['cloudforet', 'destination', 'storage', 'parquet', 'tables'],
      why: 'the shared flow knows no kind of export',
    },
    {
      name: 'anomalies',
      path: `${lib}anomalies/`,
      uses: ['destination', 'storage', 'tables'],
      why: 'judged from the published manifests, never Cloudforet',
    },
    {
      name: 'statements',
      path: `${lib}statements/`,
      uses: ['destination', 'storage', 'published', 'tables'],
      why: 'read what was published (unified costs), never Cloudforet',
    },
    {
      name: 'costs/sources',
      path: `${lib}costs/sources/`,
      uses: ['cloudforet', 'destination', 'storage', 'tables'],
      why: 'what Cloudforet says, and where a day lives',
    },
  ],
  [
    {
      name: 'costs/planning',
      path: `${lib}costs/planning/`,
      uses: ['costs/sources', 'cloudforet', 'destination', 'storage', 'tables'],
      why: 'planning decides; it exports nothing',
    },
    {
      name: 'costs/unified',
      path: `${lib}costs/unified/`,
      uses: ['cloudforet', 'export', 'destination', 'storage', 'tables'],
      why: 'unified-cost months stand alone',
    },
    {
      name: 'costs/cost-reports',
      path: `${lib}costs/cost-reports/`,
      uses: ['cloudforet', 'export', 'destination', 'storage', 'tables'],
      why: 'cost reports archived once, drafts replaced, statuses appended',
    },
    {
      name: 'costs/freshness',
      path: `${lib}costs/freshness/`,
      uses: ['costs/sources', 'destination', 'storage', 'tables'],
      why: 'freshness reads published days only',
    },
    {
      name: 'inventory',
      path: `${lib}inventory/`,
      uses: ['cloudforet', 'export', 'published', 'destination', 'storage', 'tables'],
      why: 'kinds of export share code only through export/; the names ranges read published snapshots',
    },
    {
      name: 'focus',
      path: `${lib}focus/[^/]+[.]ts$`,
      uses: ['cloudforet', 'export', 'focus/rows', 'published', 'destination', 'storage', 'tables'],
      why: 'FOCUS rows from published costs objects, whoever ran the export',
    },
    {
      name: 'compaction',
      path: `${lib}compaction/`,
      uses: ['cloudforet', 'export', 'published', 'destination', 'storage', 'tables'],
      why: 'confirmed months compacted from the published daily objects, whoever ran the export',
    },
    {
      name: 'alerts',
      path: `${lib}alerts/`,
      uses: ['anomalies', 'published', 'destination', 'storage', 'tables'],
      why: 'read what was published; SNS comes in as a function',
    },
  ],
  [
    {
      name: 'costs/days',
      path: `${lib}costs/days/`,
      uses: ['costs/planning', 'costs/sources', 'cloudforet', 'export', 'destination', 'storage', 'tables'],
      why: 'one cost day, whoever runs it',
    },
  ],
  [
    {
      name: 'costs/job',
      path: `${lib}costs/job/`,
      uses: [
        'costs/days',
        'costs/planning',
        'costs/sources',
        'costs/unified',
        'costs/cost-reports',
        'focus',
        'compaction',
        'cloudforet',
        'export',
        'destination',
        'storage',
        'tables',
      ],
      why: 'the cost job declared once: its steps, its state, its slices for the state machine',
    },
  ],
  [
    {
      name: 'costs',
      path: `${lib}costs/[^/]+[.]ts$`,
      uses: ['costs/job', 'costs/planning', 'costs/sources', 'export', 'destination', 'storage'],
      why: 'the cost run in one process and the cost event: loops over the job steps',
    },
  ],
  [
    {
      name: 'lambda',
      path: `${lib}lambda/`,
      uses: ['alerts', 'cloudforet', 'compaction', 'destination', 'storage', 'tables'],
      why: "the entry wrapper and the connections (connect-glue.ts: the focus table's Glue partitions)",
    },
  ],
  [
    {
      name: 'faces',
      path: `${lib}faces/`,
      uses: 'below',
      why: 'one face per use case (parse, run, describe), run by both entries; edge.ts: the rest the CLI needs',
    },
  ],
  [
    {
      name: 'entries',
      path: '^functions/[^/]+[.]ts$',
      uses: 'below',
      why: 'one file per Lambda, wiring only',
    },
    {
      name: 'cli',
      path: '^cli/',
      uses: ['faces'],
      runtime: false,
      why: 'the command-line tool: the use cases through their faces only, not even the runtime',
    },
    {
      name: 'infra',
      path: '^infra/',
      uses: ['parquet', 'destination', 'storage', 'tables', 'lambda', 'costs/job'],
      why: "the stack takes names, column lists and the cost job's states (costs/job/states.ts) from the lib, never its logic",
    },
  ],
  [{ name: 'bin', path: '^bin/', uses: ['cli'], why: 'the CLI launcher' }],
  // The outside world's stand-ins (the Cloudforet simulator, S3 and its conditional-write shim,
  // the Secrets Manager and SNS responders, the faulty proxy, the Athena stand-in, the Parquet
  // readers) live in harness/: they import only the lib; tools and tests import them; nothing
  // imports test/.
  [
    {
      name: 'harness',
      path: '^harness/(?!adversary/)',
      uses: [
        'runtime',
        'cloudforet',
        'destination',
        'storage',
        'parquet',
        'published',
        'tables',
        'export',
        'anomalies',
        'statements',
        'costs/sources',
        'costs/planning',
        'costs/unified',
        'costs/freshness',
        'inventory',
        'focus',
        'compaction',
        'alerts',
        'costs/days',
        'costs',
        'costs/job',
        'lambda',
      ],
      why: 'the stand-ins for the outside world, for tests, the bench and the demo',
    },
  ],
  // The adversary drives the exporter as people and the schedule do (the CLI, the faces) against
  // the stand-ins: above both, beside nothing; the test and the soak import it.
  [
    {
      name: 'adversary',
      path: '^harness/adversary/',
      uses: 'below',
      why: 'the model-based adversary: the CLI and the faces against the stand-ins, for the test and the soak',
    },
  ],
  [{ name: 'tools', path: '^tools/', uses: 'below', why: 'the demo, the bench, the soak, local invoke' }],
  [{ name: 'test', path: '^test/', uses: 'below', why: 'vitest' }],
];

/** The layers, each with its level, by name. */
function layerIndex(levels) {
  const index = new Map();
  levels.forEach((layers, level) => {
    for (const layer of layers) {
      if (index.has(layer.name)) throw new Error(`import layers: ${layer.name} is listed twice`);
      index.set(layer.name, { ...layer, level });
    }
  });
  return index;
}

/** One `allowed` rule per layer; throws when a layer uses one above it, or a sibling it does not name. */
function allowedRules(levels) {
  const index = layerIndex(levels);
  const runtime = index.get('runtime');
  return [...index.values()].map((layer) => {
    const below = [...index.values()].filter((other) => other.level < layer.level).map((other) => other.name);
    const uses = layer.uses === 'below' ? [...below, ...(layer.siblings ?? [])] : layer.uses;
    for (const name of uses) {
      const used = index.get(name);
      if (!used) throw new Error(`import layers: ${layer.name} uses ${name}, which is no layer`);
      const sibling = used.level === layer.level && (layer.siblings ?? []).includes(name);
      if (used.level >= layer.level && !sibling)
        throw new Error(
          `import layers: ${layer.name} (level ${layer.level}) may not use ${name} (level ${used.level})`,
        );
    }
    const targets = [layer, ...uses.map((name) => index.get(name))];
    if (layer.level > 0 && !uses.includes('runtime') && layer.runtime !== false) targets.push(runtime);
    return {
      comment: `${layer.name}: ${layer.why}`,
      from: { path: layer.path },
      to: { path: targets.map((t) => t.path) },
    };
  });
}

/**
 * The modules of functions/lib/ the CLI may import: one face per use case it runs, the face's shape
 * (face.ts, cli-entry's counterpart of lambdaEntry) and the edge (edge.ts: connection, setting
 * rules, logger, redactor, errors). The cli layer above reaches faces/ only; test/unit/cli-faces.test.ts
 * holds every cli/*.ts import of functions/lib/ to this list.
 */
const CLI_FACES = [
  'functions/lib/faces/face.ts',
  'functions/lib/faces/edge.ts',
  'functions/lib/faces/costs.ts',
  'functions/lib/faces/inventory.ts',
  'functions/lib/faces/statements.ts',
  'functions/lib/faces/anomalies.ts',
  'functions/lib/faces/check.ts',
  'functions/lib/faces/release-claim.ts',
  'functions/lib/faces/as-of.ts',
  'functions/lib/faces/move-into-tenant.ts',
];

module.exports = { LEVELS, CLI_FACES, allowedRules };
