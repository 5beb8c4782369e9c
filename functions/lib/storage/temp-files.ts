// Temporary files of the directory sink: where they go, how they are named, and the sweep that
// removes what a killed run left (a SIGKILL runs no cleanup, so the next run has to).
import { randomBytes } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** Beside the tables, never inside one: `_` makes Athena, Spark and Hive skip it. */
export const TEMP_DIR = '_tmp';

/** `.<name>.<pid>-<hex>.tmp`: hidden, and never matching a `*.parquet` or `*.json` glob. */
export function temporaryName(target: string): string {
  return `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

const CURRENT = /^\..+\.(\d+)-[0-9a-f]+\.tmp$/;
/** What versions before the _tmp folder left beside the target: `<name>.tmp-<pid>-<hex>`. */
const LEGACY = /\.tmp-(\d+)-[0-9a-f]+$/;

export function isTemporaryName(name: string): boolean {
  return CURRENT.test(name) || LEGACY.test(name);
}

/**
 * Removes temporary files older than `startedAt` whose process is gone. A live process's files
 * are kept whatever their age: another run may be writing into the same directory. (A pid reused
 * by an unrelated process keeps its files until that process ends.)
 * Returns how many were removed.
 */
export async function removeStaleTemporaries(root: string, startedAt: Date): Promise<number> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  let removed = 0;
  for (const e of entries) {
    const pid = e.isFile() ? temporaryPid(e.name) : undefined;
    // A live process (this one included) may be writing it: only a dead one's files are stale.
    if (pid === undefined || processAlive(pid)) continue;
    const path = join(e.parentPath, e.name);
    const info = await stat(path).catch(() => undefined);
    if (!info || info.mtimeMs >= startedAt.getTime()) continue;
    await rm(path, { force: true });
    removed++;
  }
  return removed;
}

function temporaryPid(name: string): number | undefined {
  const match = CURRENT.exec(name) ?? LEGACY.exec(name);
  return match ? Number(match[1]) : undefined;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
