// What a system error on a local destination means and what to do about it, for SinkError messages.
const REMEDIES: Readonly<Record<string, string>> = {
  EACCES: 'this user may not write there: choose another --out or fix its permissions',
  EPERM:
    'the file or folder is protected (read-only or immutable): choose another --out or lift the protection',
  EROFS: 'the file system is mounted read-only: choose another --out',
  ENOSPC: 'the disk is full: free space or choose another --out',
  EDQUOT: 'the disk quota is exhausted: free space or choose another --out',
  EFBIG: 'the file size limit (ulimit -f) was reached: raise it or export fewer days per run',
  ENOTDIR: 'a file stands where a folder must be: remove it or choose another --out',
  EISDIR: 'a folder stands where a file must be: remove it or choose another --out',
  ENOENT: 'a folder on the path does not exist or was removed during the run',
  ENOTSUP:
    'this file system takes no new files or folders there (a pseudo file system such as /proc or /sys): choose another --out',
  EXDEV: 'part of the destination is another file system: export into one file system',
};

/** ' — <remedy>' for a known errno code, '' otherwise. */
export function localCause(code: string): string {
  const remedy = REMEDIES[code];
  return remedy ? ` — ${remedy}` : '';
}
