// Import rules, checked in `npm test` (npm run deps): an allow-list generated from one ordered
// list of layers (tools/import-layers.cjs). An import between folders that no layer allows is an
// error ("not-in-allowed"), so a new folder or a new arrow between folders is a decision made in
// that list; test/unit/import-layers.test.ts plants an upward and a sideways import and sees both fail.
const { LEVELS, allowedRules } = require('./tools/import-layers.cjs');

module.exports = {
  allowedSeverity: 'error',
  allowed: [
    ...allowedRules(LEVELS),
    { comment: 'node: modules', from: {}, to: { dependencyTypes: ['core'] } },
    { comment: 'packages', from: {}, to: { path: '(^|/)node_modules/' } },
    {
      comment: 'packages the resolver cannot place (an exports map, types only): tsc resolves them',
      from: {},
      to: { couldNotResolve: true, pathNot: '^[.]' },
    },
  ],
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle: split the shared part into its own module.',
      severity: 'error',
      from: {},
      to: { circular: true },
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
