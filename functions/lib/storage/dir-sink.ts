// A local directory as a sink: write to a temporary name beside the target, then rename.
import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { SinkError } from '../errors.ts';
import type { ObjectUpload, Sink } from './sink.ts';

export function dirSink(root: string): Sink {
  const base = resolve(root);
  const pathOf = (key: string) => join(base, ...key.split('/'));
  return {
    location: base,
    begin: (key) => beginFile(pathOf(key)),
    put: async (key, body) => {
      const target = pathOf(key);
      const temp = tempName(target);
      try {
        await mkdir(dirname(target), { recursive: true });
        await writeFile(temp, body);
        await rename(temp, target);
      } catch (error) {
        await rm(temp, { force: true }).catch(() => {});
        throw sinkError('write', target, error);
      }
    },
    read: async (key) => {
      try {
        return await readFile(pathOf(key), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw sinkError('read', pathOf(key), error);
      }
    },
    remove: async (key) => {
      await rm(pathOf(key), { force: true }).catch((error) => {
        throw sinkError('remove', pathOf(key), error);
      });
    },
    list: async (prefix) => {
      const dir = pathOf(prefix);
      const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
      return entries
        .filter((e) => e.isFile() && !e.name.includes('.tmp-'))
        .map((e) => relative(base, join(e.parentPath, e.name)).split(sep).join('/'));
    },
  };
}

function beginFile(target: string): ObjectUpload {
  const temp = tempName(target);
  let handle: Promise<FileHandle> | undefined;
  const opened = () => {
    handle ??= mkdir(dirname(target), { recursive: true }).then(() => open(temp, 'w'));
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
      } catch (error) {
        await discard();
        throw sinkError('write', target, error);
      }
    },
    abort: discard,
  };
}

function tempName(target: string): string {
  return `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
}

function sinkError(action: string, path: string, error: unknown): SinkError {
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
  return new SinkError(
    'SINK_LOCAL_FAILED',
    `local sink: could not ${action} ${path}: ${code} (${(error as Error).message})`,
    {
      cause: error,
    },
  );
}
