// Every file of a destination directory with its bytes: what the tests and the adversary compare
// before and after a run.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** Every file under dir, by relative path with '/' separators. */
export async function storedFiles(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    files.set(relative(dir, path).split(sep).join('/'), await readFile(path));
  }
  return files;
}
