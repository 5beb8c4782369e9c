// `npm run test:system -- <area>...` (tools/test-system.sh): an area is a folder of test/system/,
// a wrong one is refused with the list of areas, and anything else passes to vitest untouched.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const AREAS = readdirSync(`${ROOT}test/system`).sort();

async function script(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', ['tools/test-system.sh', ...args], {
      cwd: ROOT,
      env: { ...process.env, TEST_SYSTEM_DRY_RUN: '1' },
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout, err: failed.stderr };
  }
}

describe('npm run test:system -- <area>', () => {
  it('runs the folders of the areas named, and passes the rest to vitest', async () => {
    const run = await script('focus', 'infra', '-t', 'costs', 'test/system/costs/cost-job.test.ts');

    expect(run).toEqual({
      code: 0,
      out: 'vitest run --project system test/system/focus/ test/system/infra/ -t costs test/system/costs/cost-job.test.ts\n',
      err: '',
    });
  });

  it('refuses an area that is not a folder, naming every area', async () => {
    const run = await script('focsu');

    expect(run.code).toBe(2);
    expect(run.err).toBe(`test:system: no area 'focsu'; the areas are: ${AREAS.join(' ')}\n`);
    expect(AREAS).toContain('focus');
  });

  it('runs the whole tier without arguments', async () => {
    expect((await script()).out).toBe('vitest run --project system \n');
  });
});
