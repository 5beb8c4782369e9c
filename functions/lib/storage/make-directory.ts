// Creates a directory and its missing parents one level at a time. Node's mkdir({ recursive })
// loops for ever on a path that a pseudo file system refuses with ENOENT although its parent
// exists (/proc/nope: it retries the parent, which exists, then the child again); this walk
// fails at once instead, with the error of the level that could not be made.
import { lstat, mkdir, readlink, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

export async function makeDirectory(path: string): Promise<void> {
  const missing: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    const made = await mkdir(at).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return false;
        // No parent yet: make it first (unless this is the root, which then does not exist).
        if (error.code === 'ENOENT' && dirname(at) !== at) return undefined;
        throw error;
      },
    );
    if (made !== undefined) break;
    missing.push(at);
  }
  // Parents first; each exists now or fails with its own error (ENOENT where one cannot be made).
  for (const at of missing.reverse()) {
    await mkdir(at).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return;
      // Its parent exists now, so ENOENT here is the file system refusing, not a missing parent,
      // unless the "parent" is a symbolic link to nothing (mkdir calls it existing).
      if (error.code === 'ENOENT') throw (await danglingLink(at, error)) ?? refused(at, error);
      throw error;
    });
  }
}

/** The error to give when a folder above `path` is a symbolic link whose target does not exist. */
export async function danglingLink(path: string, cause: Error): Promise<NodeJS.ErrnoException | undefined> {
  for (let at = resolve(path); dirname(at) !== at; at = dirname(at)) {
    const link = await lstat(at).then(
      (s) => s.isSymbolicLink(),
      () => false,
    );
    if (
      !link ||
      (await stat(at).then(
        () => true,
        () => false,
      ))
    )
      continue;
    const target = await readlink(at).catch(() => '?');
    return Object.assign(
      new Error(
        `'${at}' is a symbolic link to '${target}', which does not exist: create that folder, or give another --out`,
        {
          cause,
        },
      ),
      { code: 'ENOENT' },
    );
  }
  return undefined;
}

function refused(path: string, cause: Error): NodeJS.ErrnoException {
  return Object.assign(
    new Error(`mkdir '${path}': the folder above it exists but takes no new folder`, { cause }),
    { code: 'ENOTSUP' },
  );
}
