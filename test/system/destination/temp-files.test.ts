// The sweep of temporary files killed runs left: a dead process's old files in _tmp/ go, a live
// process's and newer ones stay, and nothing outside _tmp/ is ever touched, whatever its name.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { queryDuckDB } from '../../../harness/parquet-readers.ts';

/** The pid of a process that has ended. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe('stale temporary files', () => {
  let dir: string;
  const partition = () => join(dir, 'costs', 'billed_date=2026-10-01');
  const make = async (path: string, ageMs: number) => {
    await writeFile(path, 'half a parquet file');
    const at = new Date(Date.now() - ageMs);
    await utimes(path, at, at);
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'temp-files-'));
    await mkdir(partition(), { recursive: true });
    await mkdir(join(dir, '_tmp'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("removes a dead process's files older than the run from _tmp", async () => {
    const dead = deadPid();
    await make(join(dir, '_tmp', `.ds-1.parquet.${dead}-0a1b2c3d.tmp`), 60_000);

    const removed = await dirSink(dir).removeStaleTemporaries!(new Date());

    expect(removed).toBe(1);
    expect(await readdir(join(dir, '_tmp'))).toEqual([]);
  });

  it('leaves user files that look like temporaries untouched, outside _tmp and in it', async () => {
    const dead = deadPid();
    const lookAlikes = [
      join(partition(), `ds-2.parquet.tmp-${dead}-0a1b2c3d`),
      join(partition(), `.ds-3.parquet.${dead}-0a1b2c3d.tmp`),
      join(dir, `.notes.${dead}-0a1b2c3d.tmp`),
      join(dir, '_tmp', `.mine.${dead}-abc.tmp`),
      join(dir, '_tmp', `report.${dead}.tmp`),
    ];
    for (const path of lookAlikes) await make(path, 60_000);

    const removed = await dirSink(dir).removeStaleTemporaries!(new Date());

    expect(removed).toBe(0);
    for (const path of lookAlikes) expect(await readFile(path, 'utf8')).toBe('half a parquet file');
  });

  it("keeps a live process's files and files newer than the run", async () => {
    const live = join(dir, '_tmp', `.ds-1.parquet.${process.pid}-0a1b2c3d.tmp`);
    const fresh = join(dir, '_tmp', `.ds-2.parquet.${deadPid()}-0a1b2c3d.tmp`);
    await make(live, 60_000);
    await make(fresh, 0);

    const removed = await dirSink(dir).removeStaleTemporaries!(new Date(Date.now() - 30_000));

    expect(removed).toBe(0);
    expect((await readdir(join(dir, '_tmp'))).sort()).toEqual(
      [fresh, live].map((p) => p.split('/').at(-1)).sort(),
    );
  });

  it('a pending object is invisible to a DuckDB glob of the table until it commits', async () => {
    const sink = dirSink(dir);
    await sink.put('costs/billed_date=2026-10-01/done.json', '{}', 'application/json');
    const upload = sink.begin('costs/billed_date=2026-10-01/pending.csv', 'text/csv');
    await upload.write(new TextEncoder().encode('a\n2\n'));

    const { rows } = await queryDuckDB(`SELECT * FROM glob('${dir}/costs/*/*')`);
    await upload.abort();

    expect(rows.map((r) => String(r.file).split('/').at(-1))).toEqual(['done.json']);
  });
});
