// A local directory as a sink: write to a temporary file under <root>/_tmp/, then rename it into
// place. Temporary files never sit inside a table folder, where a glob (DuckDB's `*`) would read
// them, and their folder and names start with `_` and `.`, which Athena and Spark skip.
import { createHash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import {
  access,
  type FileHandle,
  link,
  open,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { SinkError } from '../errors.ts';
import { localCause } from './local-errors.ts';
import { danglingLink, makeDirectory } from './make-directory.ts';
import type { ObjectUpload, Sink, StoredObject } from './sink.ts';
import { removeStaleTemporaries, TEMP_DIR, temporaryName } from './temp-files.ts';

export function dirSink(root: string): Sink {
  const base = resolve(root);
  const pathOf = (key: string) => join(base, ...key.split('/'));
  const readBytes = async (key: string): Promise<Uint8Array | undefined> => {
    try {
      return await readFile(pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw sinkError('read', pathOf(key), error);
    }
  };
  return {
    location: base,
    begin: (key) => beginFile(pathOf(key), join(base, TEMP_DIR)),
    // Written whole under _tmp/, then renamed into place (replacing) or linked (only if absent).
    put: async (key, body) => {
      await placeWhole(pathOf(key), join(base, TEMP_DIR), body, rename);
    },
    createIfAbsent: async (key, body) => {
      try {
        // link() fails with EEXIST when the target exists: the whole file appears, or nothing.
        await placeWhole(pathOf(key), join(base, TEMP_DIR), body, link);
        return true;
      } catch (error) {
        if ((error as { cause?: NodeJS.ErrnoException }).cause?.code === 'EEXIST') return false;
        throw error;
      }
    },
    read: async (key) => {
      const bytes = await readBytes(key);
      return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
    },
    readBytes,
    remove: async (key) => {
      await rm(pathOf(key), { force: true }).catch((error) => {
        throw sinkError('remove', pathOf(key), error);
      });
    },
    list: async (prefix) => [...(await listFiles(base, pathOf(prefix))).keys()],
    listObjects: async (prefix) => {
      const files = await listFiles(base, pathOf(prefix));
      const objects = new Map<string, StoredObject>();
      for (const [key, path] of files) {
        const info = await stat(path).catch(() => undefined);
        if (info) {
          const mtimeMs = Math.round(info.mtimeMs);
          objects.set(key, { size: info.size, mtimeMs, modifiedMs: mtimeMs });
        }
      }
      return objects;
    },
    sha256: async (key, { signal } = {}) => {
      const hash = createHash('sha256');
      try {
        for await (const chunk of createReadStream(pathOf(key), { signal })) hash.update(chunk as Buffer);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw sinkError('read', pathOf(key), error);
      }
      return hash.digest('hex');
    },
    checkWritable: async () => {
      const { path, error } = await writableAncestor(base);
      if (error) throw sinkError('write', path, error);
    },
    removeEmptyFolders: async (prefixes) => {
      // rmdir refuses a folder that is not empty: a concurrent run's files are never touched.
      for (const prefix of prefixes) await rmdir(pathOf(prefix)).catch(() => undefined);
    },
    removeStaleTemporaries: (startedAt) => removeStaleTemporaries(base, startedAt),
    setModified: async (key, mtimeMs) => {
      try {
        await utimes(pathOf(key), new Date(), new Date(mtimeMs));
        const info = await stat(pathOf(key));
        const ms = Math.round(info.mtimeMs);
        return { size: info.size, mtimeMs: ms, modifiedMs: ms };
      } catch (error) {
        throw sinkError('write', pathOf(key), error);
      }
    },
  };
}

/** The nearest existing folder on the way to dir, and why it cannot be written into, if it cannot. */
async function writableAncestor(dir: string): Promise<{ path: string; error?: unknown }> {
  for (let path = dir; ; path = dirname(path)) {
    const info = await stat(path).catch((error: NodeJS.ErrnoException) => error);
    if (info instanceof Error && info.code === 'ENOENT' && dirname(path) !== path) {
      // A symbolic link to nothing: stat says ENOENT, yet mkdir will say it exists.
      const dangling = await danglingLink(path, info);
      if (dangling) return { path, error: dangling };
      continue;
    }
    if (info instanceof Error) return { path, error: info };
    if (!info.isDirectory())
      return { path, error: Object.assign(new Error('not a directory'), { code: 'ENOTDIR' }) };
    const denied = await access(path, constants.W_OK).catch((error: unknown) => error);
    return { path, error: denied ?? undefined };
  }
}

/** key -> path of every data file under dir (temporary files left out). */
async function listFiles(base: string, dir: string): Promise<Map<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = new Map<string, string>();
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    const key = relative(base, path).split(sep).join('/');
    if (!key.startsWith(`${TEMP_DIR}/`)) files.set(key, path);
  }
  return files;
}

/** Writes a small file whole to a temporary one, then places it with `place` (rename or link). */
async function placeWhole(
  target: string,
  tempDir: string,
  body: string,
  place: (from: string, to: string) => Promise<void>,
): Promise<void> {
  const temp = join(tempDir, temporaryName(target));
  try {
    await makeDirectory(dirname(target));
    await makeDirectory(tempDir);
    await writeFile(temp, body);
    await place(temp, target);
  } catch (error) {
    throw sinkError('write', target, error);
  } finally {
    await rm(temp, { force: true }).catch(() => {});
  }
}

function beginFile(target: string, tempDir: string): ObjectUpload {
  const temp = join(tempDir, temporaryName(target));
  let handle: Promise<FileHandle> | undefined;
  const opened = () => {
    handle ??= Promise.all([makeDirectory(dirname(target)), makeDirectory(tempDir)]).then(() =>
      open(temp, 'w'),
    );
    return handle;
  };
  const discard = async () => {
    if (!handle) return;
    await (await handle.catch(() => undefined))?.close().catch(() => {});
    await rm(temp, { force: true }).catch(() => {});
  };
  return {
    write: async (chunk) => {
      try {
        const file = await opened();
        // A write may be short (file size limit, a full disk): never ignore the bytes it left.
        for (let at = 0; at < chunk.length; ) at += (await file.write(chunk, at)).bytesWritten;
      } catch (error) {
        throw sinkError('write', target, error);
      }
    },
    commit: async () => {
      try {
        const file = await opened();
        await file.sync();
        await file.close();
        await rename(temp, target);
        return { mtimeMs: Math.round((await stat(target)).mtimeMs) };
      } catch (error) {
        await discard();
        throw sinkError('write', target, error);
      }
    },
    abort: discard,
  };
}

function sinkError(action: string, path: string, error: unknown): SinkError {
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
  return new SinkError(
    'SINK_LOCAL_FAILED',
    `local sink: could not ${action} ${path}: ${code} (${(error as Error).message})${localCause(code)}`,
    { cause: error },
  );
}
