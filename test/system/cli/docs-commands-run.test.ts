// Every command README.md and docs/*.md print runs as printed: the commands of shell code blocks
// (```sh, bash, shell or console) and the concrete ones in backticks (npm, npx, bash tools/…,
// cloudforet-export; none with a placeholder such as DIR or N). Each that can run offline runs in
// a fresh folder laid out as a clone, with s3rver for s3:// and `cloudforet-export` on PATH as
// `npm link` puts it; NOT_RUN names the rest with the reason. A printed command that fails here
// fails the test; a new one is run unless NOT_RUN gives it a reason.
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3Server, startS3 } from '../../../harness/s3-server.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const FILES = [
  'README.md',
  ...(await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
];

/** Not run, each for its reason. */
const NOT_RUN: readonly { readonly command: RegExp; readonly reason: string }[] = [
  {
    command: /^npm (install|ci)$/,
    reason: 'installs packages from the npm registry (the network), into the node_modules every test shares',
  },
  { command: /^npm link$/, reason: "links the command into npm's global folder: changes the machine" },
  {
    command: /^npm (test|run (check|test:unit|test:system|test:shifted))( -- [a-z -]+)?$|^npx vitest run\b/,
    reason:
      'the test suite with this test in it (an area of it: minutes), about 20 minutes in all (test:shifted 13); CI runs it',
  },
  { command: /^npx cdk (deploy|destroy|bootstrap)\b/, reason: 'needs an AWS account and its credentials' },
  { command: /^aws /, reason: 'the AWS CLI against a real account' },
  { command: /^[A-Z_]+=\S+$/, reason: 'a shell variable for the aws commands that follow it' },
  {
    command: /^npm run bench\b/,
    reason: 'a benchmark, minutes each; docs/performance.md records its runs, which readme-figures reads',
  },
  { command: /^npm run soak\b/, reason: 'minutes: 120 seeded runs' },
  {
    command: /^npx tsx tools\/cid\/refresh\.ts$/,
    reason: 'minutes: a year of FOCUS rows; docs/focus.md records it',
  },
  {
    command: /^npm run schema-lock$/,
    reason: 'rewrites docs/schema-lock.json, which test/unit/schema-lock.test.ts holds the tables to',
  },
  {
    command: /^npm run simulator$/,
    reason:
      'runs until Ctrl-C: test/system/cli/no-silence.test.ts starts it as printed, waits for its lines, stops it',
  },
  {
    command: /^npm run synth -- /,
    reason: 'the synth of `bash tools/with-node24.sh npx cdk synth …`, which runs here, with -q',
  },
  {
    command: /^cloudforet-export( check| costs --cost-reports)?$/,
    reason: 'a command named in a sentence, without the connection options it needs',
  },
];

/** The S3 buckets the printed commands name, created in s3rver. */
const BUCKETS = ['bucket'];

interface Printed {
  readonly file: string;
  readonly command: string;
}

/** The commands of every shell block: continuations joined, comments dropped, `a && b` as two. */
function shellCommands(file: string, text: string): Printed[] {
  const blocks = [...text.matchAll(/^( *)```(?:sh|bash|shell|console)\n([\s\S]*?)^ *```$/gm)];
  return blocks.flatMap((block) =>
    block[2]!
      .split('\n')
      .map((line) => line.slice(block[1]!.length))
      .join('\n')
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((line) =>
        line
          .replace(/^\$ /, '')
          .replace(/\s+#.*$/, '')
          .trim(),
      )
      .filter((line) => line !== '' && !line.startsWith('#'))
      .flatMap((line) => line.split(/\s+&&\s+/))
      .map((command) => ({ file, command })),
  );
}

const PLACEHOLDER = /[[\]()|<>…]|\b[A-Z][A-Z_-]*\b|YYYY/;

/** Concrete commands in backticks: a launcher first, no placeholder. */
function inlineCommands(file: string, text: string): Printed[] {
  return [...text.matchAll(/`((?:npm|npx|bash tools\/|cloudforet-export)[^`]*)`/g)]
    .map((m) => m[1]!.replace(/\s+/g, ' ').trim())
    .filter((command) => /^(npm|npx|bash|cloudforet-export)( |$)/.test(command) && !PLACEHOLDER.test(command))
    .map((command) => ({ file, command }));
}

const TEXTS = await Promise.all(
  FILES.map(async (file) => [file, await readFile(join(ROOT, file), 'utf8')] as const),
);
const ALL = TEXTS.flatMap(([file, text]) => [...shellCommands(file, text), ...inlineCommands(file, text)]);
/** Each command once, where it is first printed. */
const PRINTED = ALL.filter((p, i) => ALL.findIndex((q) => q.command === p.command) === i);
const reasonNotRun = (command: string) => NOT_RUN.find((n) => n.command.test(command))?.reason;
const TO_RUN = PRINTED.filter((p) => reasonNotRun(p.command) === undefined);

let clone: string;
let s3: S3Server;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  // The clone: the repository's top-level entries linked into a fresh folder, so what a command
  // writes (./export-out, ./simulator-app.json) lands there and goes with it.
  const base = await mkdtemp(join(tmpdir(), 'docs-shell-'));
  clone = join(base, 'cloudforet-export');
  await mkdir(clone);
  const leftOut = new Set(['.git', 'export-out', 'simulator-app.json', 'cdk.out', 'cdk.context.json']);
  for (const entry of await readdir(ROOT)) {
    if (!leftOut.has(entry)) await symlink(join(ROOT, entry), join(clone, entry));
  }
  const bin = join(base, 'bin');
  await mkdir(bin);
  await writeFile(
    join(bin, 'cloudforet-export'),
    `#!/bin/sh\nexec node '${join(ROOT, 'bin/cloudforet-export.mjs')}' "$@"\n`,
  );
  await chmod(join(bin, 'cloudforet-export'), 0o755);
  s3 = await startS3({ buckets: BUCKETS });
  // The CDK CLI fetches notices and sends telemetry unless told not to: a home with that said.
  const home = join(base, 'home');
  await mkdir(home);
  await writeFile(join(home, '.cdk.json'), JSON.stringify({ notices: false }));
  env = {
    ...process.env,
    HOME: home,
    npm_config_cache: join(process.env.HOME ?? home, '.npm'),
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    PATH: `${bin}${delimiter}${process.env.PATH}`,
    ...s3.env,
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}, 30_000);
afterAll(async () => {
  await s3?.stop();
  if (clone) await rm(join(clone, '..'), { recursive: true, force: true });
});

function shell(command: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('the commands README.md and docs/ print', () => {
  it('are found, and each command is either run here or named with the reason it is not', () => {
    const notRun = PRINTED.filter((p) => reasonNotRun(p.command) !== undefined).map(
      (p) => `${p.file}: ${p.command} (${reasonNotRun(p.command)})`,
    );

    expect(PRINTED.length).toBeGreaterThanOrEqual(8);
    // The extraction still finds the blocks it was written against (an indented one among them).
    expect(TO_RUN.map((p) => p.command)).toEqual(
      expect.arrayContaining([
        'npm start',
        'cloudforet-export release-claim --out s3://bucket/prefix --force',
      ]),
    );
    expect(notRun).toContain(
      'README.md: npx cdk deploy -c cloudforetEndpoint=https://console-v2.api.example.com (needs an AWS account and its credentials)',
    );
  });

  it.each(TO_RUN.map((p) => [p.command, p.file] as const))(
    '%s (%s) exits 0 as printed',
    async (command) => {
      const { code, output } = await shell(command);

      expect(code, output).toBe(0);
    },
    120_000,
  );
});
