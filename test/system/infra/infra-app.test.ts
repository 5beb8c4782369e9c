// The CDK app as `cdk synth` runs it (context in CDK_CONTEXT_JSON): a settings problem is one
// message naming the fix, with no stack trace, and a non-zero exit.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../infra/export-function.ts';

let outdir: string;

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'cdk-app-'));
});
afterAll(async () => {
  await rm(outdir, { recursive: true, force: true });
});

function synthApp(context: Record<string, unknown>) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: outdir },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('infra/app.ts with bad context', () => {
  it('refuses misspelt keys with the closest name, as one message without a stack trace', () => {
    const run = synthApp({
      cloudforetEndpoint: 'https://cf.example.com',
      memorymb: '2048',
      alarmemail: 'ops@example.com',
    });

    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'invalid CDK context for the Cloudforet export stack (set with -c key=value or in cdk.json):',
      '  - memorymb is not a setting of this stack; did you mean memoryMb?',
      '  - alarmemail is not a setting of this stack; did you mean alarmEmail?',
    ]);
  });
});
