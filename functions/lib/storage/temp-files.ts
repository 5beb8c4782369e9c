// Temporary files of the directory sink: where they go, how they are named, and the sweep that
// removes what a killed run left (a SIGKILL runs no cleanup, so the next run has to).
import { randomBytes } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** The folder of the directory sink's temporaries, at the destination's root. */
export const TEMP_DIR = '_tmp';

/** `.<name>.<pid>-<hex>.tmp` (under TEMP_DIR): hidden, and never matching a `*.parquet` or `*.json` glob. */
export function temporaryName(target: string): string {
  return `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

const TEMPORARY = /^\..+\.(\d+)-[0-9a-f]{8}\.tmp$/;

/** The pid of the process that made a temporary of this name; undefined for any other name. */
export function temporaryPid(name: string): number | undefined {
  const match = TEMPORARY.exec(name);
  return match ? Number(match[1]) : undefined;
}

/**
 * Removes temporary files older than `startedAt` whose process is gone. A live process's files
 * are kept whatever their age: another run may be writing into the same directory. (A pid reused
 * by an unrelated process keeps its files until that process ends.)
 * Returns how many were removed.
 */
export async function removeStaleTemporaries(root: string, startedAt: Date): Promise<number> {
  // Only the tool's own folder, only names it makes: a user's file elsewhere is never touched.
  const entries = await readdir(join(root, TEMP_DIR), { withFileTypes: true }).catch(() => []);
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

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
