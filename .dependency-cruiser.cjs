// Import rules, checked in `npm test` (npm run deps). Dependencies point one way:
// runtime files at the top of functions/lib <- cloudforet, storage <- parquet <- tables <- export
// <- costs, inventory <- lambda <- Lambda entries (functions/*.ts) and the CLI. No cycles anywhere.
// Inside costs/: sources <- planning <- days; unified stands alone; backfill and the run
// (costs/*.ts) use them; freshness needs sources only.
const lib = '^functions/lib/';
const layer = (name) => `${lib}${name}/`;
const runtime = `${lib}[^/]+[.]ts$`;

/** A folder that must not import from any of the given ones. */
const mustNotImport = (from, names, why) => ({
  name: `${from}-not-${names.join('-')}`,
  comment: why,
  severity: 'error',
  from: { path: layer(from) },
  to: { path: `${lib}(${names.join('|')})/` },
});

/** A folder of costs/ that must not import from the given ones of its siblings. */
const costsMustNotImport = (from, names, why) => ({
  name: `costs-${from}-not-${names.join('-')}`,
  comment: why,
  severity: 'error',
  from: { path: `${lib}costs/${from}/` },
  to: { path: `${lib}costs/(${names.join('|')})/` },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle: split the shared part into its own module.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'runtime-is-the-bottom',
      comment: 'config, log, errors, dates, pool, event-shape import nothing else of the lib.',
      severity: 'error',
      from: { path: runtime },
      to: { path: `${lib}[^/]+/` },
    },
    mustNotImport(
      'cloudforet',
      ['storage', 'parquet', 'tables', 'export', 'costs', 'inventory', 'anomalies', 'alerts', 'lambda'],
      'cloudforet talks HTTP only',
    ),
    mustNotImport(
      'storage',
      [
        'cloudforet',
        'parquet',
        'tables',
        'export',
        'costs',
        'inventory',
        'anomalies',
        'published',
        'alerts',
        'lambda',
      ],
      'storage moves bytes; it knows no Parquet',
    ),
    mustNotImport(
      'parquet',
      ['cloudforet', 'tables', 'export', 'costs', 'inventory', 'lambda'],
      'the encoder knows columns, not tables',
    ),
    mustNotImport('tables', ['export', 'costs', 'inventory', 'lambda', 'storage'], 'column lists are data'),
    mustNotImport('export', ['costs', 'inventory', 'lambda'], 'the shared flow knows no kind of export'),
    mustNotImport(
      'costs',
      ['inventory', 'anomalies', 'lambda'],
      'kinds of export do not share code but through export/',
    ),
    mustNotImport(
      'statements',
      ['cloudforet', 'parquet', 'export', 'costs', 'inventory', 'anomalies', 'alerts', 'lambda'],
      'statements read what was published (unified costs), never Cloudforet',
    ),
    mustNotImport(
      'published',
      [
        'cloudforet',
        'parquet',
        'tables',
        'export',
        'costs',
        'inventory',
        'anomalies',
        'statements',
        'alerts',
        'lambda',
      ],
      'reading published objects through a sink knows no kind of export',
    ),
    mustNotImport(
      'alerts',
      ['cloudforet', 'parquet', 'export', 'costs', 'inventory', 'statements', 'lambda'],
      'alerts read what was published, never Cloudforet; SNS comes in as a function (lambda/connect-alerts.ts)',
    ),
    mustNotImport(
      'anomalies',
      ['cloudforet', 'parquet', 'export', 'costs', 'inventory', 'statements', 'alerts', 'lambda'],
      'anomalies read what was published (manifests), never Cloudforet',
    ),
    mustNotImport(
      'inventory',
      ['costs', 'focus', 'lambda'],
      'kinds of export do not share code but through export/',
    ),
    mustNotImport(
      'focus',
      ['costs', 'inventory', 'anomalies', 'statements', 'lambda'],
      'FOCUS rows come from published costs objects (and names), whoever ran the export',
    ),
    costsMustNotImport(
      'sources',
      ['planning', 'days', 'unified', 'backfill', 'freshness'],
      'what Cloudforet says, and where a day lives',
    ),
    costsMustNotImport(
      'planning',
      ['days', 'unified', 'backfill', 'freshness'],
      'planning decides; it exports nothing',
    ),
    costsMustNotImport('days', ['unified', 'backfill', 'freshness'], 'one cost day, whoever runs it'),
    costsMustNotImport(
      'unified',
      ['sources', 'planning', 'days', 'backfill', 'freshness'],
      'unified-cost months stand alone',
    ),
    costsMustNotImport(
      'freshness',
      ['planning', 'days', 'unified', 'backfill'],
      'freshness reads published days only',
    ),
    costsMustNotImport('backfill', ['freshness'], 'the Step Functions backfill'),
    {
      name: 'costs-parts-not-the-run',
      comment: 'the folders of costs/ are used by the run (costs/*.ts), never the reverse',
      severity: 'error',
      from: { path: `${lib}costs/[^/]+/` },
      to: { path: `${lib}costs/[^/]+[.]ts$` },
    },
    {
      name: 'costs-run-not-backfill',
      comment: 'the inline run and the CLI do not use the Step Functions backfill',
      severity: 'error',
      from: { path: `${lib}costs/[^/]+[.]ts$` },
      to: { path: `${lib}costs/(backfill|freshness)/` },
    },
    {
      name: 'lib-not-outward',
      comment: 'the lib is imported by entries, the CLI, infra, tools and tests; never the reverse',
      severity: 'error',
      from: { path: lib },
      to: { path: '^(functions/[^/]+[.]ts$|cli/|infra/|tools/|test/)' },
    },
    {
      name: 'product-not-test-code',
      comment: 'nothing that ships imports tests or dev tools',
      severity: 'error',
      from: { path: '^(functions|cli|infra)/' },
      to: { path: '^(test|tools)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|cdk[.]out|export-out)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
