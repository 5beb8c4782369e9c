#!/usr/bin/env node
// Launcher: runs the TypeScript CLI through tsx, so a clone needs no build step. The Node check
// comes first and imports nothing: the CLI needs Node 24 (zlib's zstd, the Lambda runtime).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `cloudforet-export: needs Node 24 or later (this is Node ${process.versions.node}); in the clone run it as 'npm run cli -- …' (or 'bash tools/with-node24.sh npx cloudforet-export …'), which fetches Node 24 once, or install Node 24 (see .nvmrc)\n`,
  );
  process.exit(2);
}
// `npm run cli -- …` runs in the package's folder; relative paths are meant from where it was typed.
if (process.env.npm_lifecycle_event === 'cli' && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2), process.env);
// Stopped by SIGINT or SIGTERM, the summary printed: what the stop abandoned (a socket to an S3
// that never answers an aborted upload) must not keep the process alive.
if (process.exitCode === 130 || process.exitCode === 143) process.exit();
