// The unit tier (test/unit/) stays fast by construction: no file there reaches, through its
// imports, a module that starts a server, a child process, a CDK synth or DuckDB. A test that
// needs one belongs in the system tier, in its area's folder (test/system/<area>/). Every test
// file lies in one of the two, so none is left out of both tiers.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageName, reach, specifiers } from '../support/import-graph.ts';
import { areaOf } from '../support/tier-time.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Every test file of the repository, from its root. */
const TESTS = (readdirSync(`${root}test`, { recursive: true }) as string[])
  .map((f) => `test/${f.replaceAll('\\', '/')}`)
  .filter((f) => f.endsWith('.test.ts'))
  .sort();
const UNIT_TESTS = TESTS.filter((f) => f.startsWith('test/unit/'));

/** Modules a unit-tier file must not reach, and why. */
const SLOW: Readonly<Record<string, string>> = {
  'node:child_process': 'starts a child process',
  'node:http': 'serves HTTP (the simulator, the responders)',
  'node:https': 'serves or calls HTTPS',
  'node:http2': 'serves HTTP/2',
  'node:net': 'opens sockets',
  'node:dgram': 'opens sockets',
  'node:worker_threads': 'starts threads',
  s3rver: 'an S3 server',
  '@duckdb/node-api': 'DuckDB',
  'aws-cdk-lib': 'a CDK synth',
  esbuild: 'bundling',
};

/** What in a file's own text starts a server or reaches the network, though it imports nothing slow. */
const SLOW_TEXT: readonly RegExp[] = [/\.listen\(/, /\bfetch\(/, /\bspawn\(/, /\bexecFile\(/];

/** The slow modules `file` reaches, each with the repository file that imports it. */
function slowReach(file: string): string[] {
  const { packages } = reach(root, file);
  return Object.keys(SLOW)
    .filter((name) => packages.has(name))
    .map((name) => `${name} (${SLOW[name]}), imported by ${packages.get(name)}`);
}

describe('the unit tier', () => {
  it('leaves no test file outside test/unit/ and the folders of test/system/<area>/', () => {
    const astray = TESTS.filter(
      (f) =>
        !/^test\/unit\/[^/]+\.test\.ts$/.test(f) && !/^test\/system\/[a-z0-9-]+\/[^/]+\.test\.ts$/.test(f),
    );

    expect(astray, 'move these into test/unit/ or test/system/<area>/').toEqual([]);
    expect(UNIT_TESTS.length).toBeGreaterThan(40);
    expect(areaOf(`${root}test/system/focus/cid-focus.test.ts`)).toBe('focus');
    expect(areaOf(`${root}test/unit/lanes.test.ts`)).toBeUndefined();
  });

  it.each(UNIT_TESTS)('%s reaches no server, child process, synth or DuckDB', (file) => {
    const slow = slowReach(file);

    expect(slow, `move ${file} to its area under test/system/ or drop the import`).toEqual([]);
  });

  it.each(UNIT_TESTS)('%s starts no server and calls no network itself', (file) => {
    const text = readFileSync(root + file, 'utf8');

    expect(SLOW_TEXT.filter((pattern) => pattern.test(text)).map(String)).toEqual([]);
  });
});

describe('the import reader the guard relies on', () => {
  it('sees static, side-effect and dynamic imports, and skips type-only ones', () => {
    const text = [
      "import { a } from './a.ts';",
      "import './side.ts';",
      "export { b } from '../b.ts';",
      "import type { T } from 'aws-cdk-lib';",
      `const m = await ${'import'}('node:net');`, // spelt so that this file does not import node:net
    ].join('\n');

    expect(specifiers(text)).toEqual(['./a.ts', './side.ts', '../b.ts', 'node:net']);
  });

  it('names packages without their subpath', () => {
    expect(
      ['aws-cdk-lib/assertions', '@duckdb/node-api', 'child_process', 'node:fs/promises'].map(packageName),
    ).toEqual(['aws-cdk-lib', '@duckdb/node-api', 'node:child_process', 'node:fs']);
  });

  it('finds what a system-tier file reaches through its support modules', () => {
    expect(slowReach('test/system/destination/s3-server.test.ts')).toEqual([
      'node:child_process (starts a child process), imported by harness/s3-server.ts',
    ]);
    expect(slowReach('test/system/infra/infra-schema.test.ts')).toEqual([
      'aws-cdk-lib (a CDK synth), imported by test/support/synth-stack.ts',
    ]);
  });
});
