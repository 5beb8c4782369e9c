// npm install installs the project's git hooks (package.json `prepare`, tools/install-hooks.sh):
// in a clone, core.hooksPath names tools/git-hooks, whose pre-push runs the checks a push should
// pass and whose commit-msg refuses a subject over 72 characters; outside a git work tree the
// script does nothing and succeeds.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const SCRIPT = join(ROOT, 'tools/install-hooks.sh');

describe('the git hooks', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('are installed by npm install, in a clone', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.prepare).toBe('bash tools/install-hooks.sh');
    const clone = await mkdtemp(join(tmpdir(), 'hooks-'));
    dirs.push(clone);
    execFileSync('git', ['init', '-q', clone]);

    execFileSync('bash', [SCRIPT], { cwd: clone });

    expect(execFileSync('git', ['config', 'core.hooksPath'], { cwd: clone, encoding: 'utf8' }).trim()).toBe(
      'tools/git-hooks',
    );
  });

  it('do nothing outside a git work tree, and succeed', async () => {
    const plain = await mkdtemp(join(tmpdir(), 'no-git-'));
    dirs.push(plain);
    expect(() =>
      execFileSync('bash', [SCRIPT], { cwd: plain, env: { ...process.env, GIT_DIR: join(plain, 'none') } }),
    ).not.toThrow();
  });

  it('run the type check, the lint, the import rules and the unit tier before a push', () => {
    const hook = join(ROOT, 'tools/git-hooks/pre-push');
    accessSync(hook, constants.X_OK);
    const text = readFileSync(hook, 'utf8');
    for (const step of ['typecheck', 'lint', 'deps', 'test:unit'])
      expect(text).toContain(`npm run -s ${step}`);
  });

  it('refuse a commit whose subject is over 72 characters, and take one of 72', async () => {
    const clone = await mkdtemp(join(tmpdir(), 'hooks-msg-'));
    dirs.push(clone);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd: clone,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    git('init', '-q');
    git('config', 'core.hooksPath', join(ROOT, 'tools/git-hooks'));
    const long = `A subject that goes on ${'and on '.repeat(8)}past the mark`;
    expect(long.length).toBeGreaterThan(72);

    expect(() => git('commit', '-q', '--allow-empty', '-m', long)).toThrow(
      /the subject is \d+ characters; at most 72/,
    );
    expect(() => git('commit', '-q', '--allow-empty', '-m', 'x'.repeat(72), '-m', 'why')).not.toThrow();
    expect(git('log', '--format=%s').trim()).toBe('x'.repeat(72));
  });
});
