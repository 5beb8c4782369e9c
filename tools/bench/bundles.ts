// Each Lambda entry bundled as the stack bundles it (infra/export-function.ts BUNDLING: ESM,
// minified, node24, the createRequire banner), its size and its cold import time beside a bare
// Node start: what a cold start pays before the handler runs.
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ESM_REQUIRE_BANNER } from '../../infra/export-function.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STARTS = 5;

export interface BundleFigure {
  readonly entry: string;
  readonly bytes: number;
  /** Median wall time of a fresh `node` that imports the bundle, less a bare start's. */
  readonly importMs: number;
}

export interface BundleFigures {
  readonly bareStartMs: number;
  readonly bundles: readonly BundleFigure[];
}

export async function measureBundles(): Promise<BundleFigures> {
  const outdir = `${ROOT}node_modules/.cache/bench/bundles-${process.pid}`;
  await mkdir(outdir, { recursive: true });
  const entries = (await readdir(`${ROOT}functions`)).filter((f) => f.endsWith('.ts')).sort();
  const bareStartMs = medianStart(['-e', '0']);
  const bundles: BundleFigure[] = [];
  for (const entry of entries) {
    const outfile = `${outdir}/${entry.replace(/\.ts$/, '.mjs')}`;
    await build({
      entryPoints: [`${ROOT}functions/${entry}`],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      mainFields: ['module', 'main'],
      minify: true,
      keepNames: true,
      banner: { js: ESM_REQUIRE_BANNER },
      logLevel: 'warning',
    });
    const importMs = medianStart(['--input-type=module', '-e', `await import(${JSON.stringify(outfile)})`]);
    bundles.push({ entry, bytes: (await stat(outfile)).size, importMs: importMs - bareStartMs });
  }
  // Per process (several worktrees share node_modules): gone once measured.
  await rm(outdir, { recursive: true, force: true });
  return { bareStartMs, bundles };
}

/** Median wall time of STARTS fresh Node processes with these arguments. */
function medianStart(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const started = performance.now();
    execFileSync(process.execPath, args, { stdio: 'ignore' });
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(STARTS / 2)]!;
}

export function describeBundles(f: BundleFigures): string {
  const rows = f.bundles.map(
    (b) =>
      `| ${b.entry.padEnd(22)} | ${(b.bytes / 1024).toFixed(0).padStart(6)} KiB | ${b.importMs.toFixed(0).padStart(5)} ms |`,
  );
  return [
    `Lambda bundles (esbuild as the stack bundles them; cold import beyond a bare Node start of ${f.bareStartMs.toFixed(0)} ms):`,
    '',
    '| function               | bundle     | import   |',
    '| ---------------------- | ---------- | -------- |',
    ...rows,
  ].join('\n');
}
