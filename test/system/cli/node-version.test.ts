// The bare CLI on a Node older than 24 (a fresh clone on a Node 20 machine) says what it needs in
// one line and exits 2, before loading anything that would die on the old runtime.
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../../bin/cloudforet-export.mjs', import.meta.url));

/** The first `node` on PATH older than 24 (with-node24.sh puts Node 24 first, the machine's after). */
function olderNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const node = join(dir, 'node');
    try {
      accessSync(node, constants.X_OK);
      const major = Number(execFileSync(node, ['-p', 'process.versions.node.split(".")[0]']).toString());
      if (major < 24) return node;
    } catch {}
  }
  return undefined;
}

const OLD_NODE = olderNode();

describe('the CLI on an older Node', () => {
  it.skipIf(OLD_NODE === undefined)('names Node 24 and npm run cli in one line, exit 2', () => {
    const run = spawnSync(OLD_NODE!, [BIN, '--version'], { encoding: 'utf8' });

    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^cloudforet-export: needs Node 24 or later \(this is Node \d+\./);
    expect(run.stderr).toContain("run it as 'npm run cli -- …'");
  });

  it('runs on this Node (24)', () => {
    const run = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });

    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^cloudforet-export \d+\.\d+\.\d+ \(Node 24\./);
  });
});
