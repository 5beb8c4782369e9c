// A full row group is compressed and written while the next one fills (ParquetRowWriter's
// handOverGroup): the caller goes on appending, one group is written at a time and in order, a
// failed write is thrown at the next append or close, settled() waits for a write still out, and
// one group at a time is written behind in the process.
import { describe, expect, it } from 'vitest';
import type { TableDef } from '../../functions/lib/parquet/columns.ts';
import { ParquetRowWriter } from '../../functions/lib/parquet/row-writer.ts';
import { readWithHyparquet } from '../../harness/hyparquet-reader.ts';

interface Row {
  readonly id: string;
  readonly amount: number;
}

const table: TableDef<Row, undefined> = {
  name: 'handover',
  partitionKey: 'billed_date',
  schemaVersion: 1,
  description: 'row group hand-over probe',
  columns: [
    { name: 'id', type: 'string', description: '', value: (r) => r.id },
    { name: 'amount', type: 'double', description: '', value: (r) => r.amount },
  ],
  clusterBy: ['id'],
};

const rows = (from: number, n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `cost-${String(from + i).padStart(12, '0')}`,
    amount: from + i,
  }));

/** An output whose writes wait until let go, one by one, and may fail. */
function heldOutput() {
  const chunks: Uint8Array[] = [];
  const waiting: { chunk: Uint8Array; go: () => void; fail: (error: Error) => void }[] = [];
  return {
    chunks,
    waiting,
    out: {
      write: (chunk: Uint8Array) =>
        new Promise<void>((go, fail) => {
          waiting.push({
            chunk,
            go: () => {
              chunks.push(new Uint8Array(chunk));
              go();
            },
            fail,
          });
        }),
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('a row group written while the next fills', () => {
  it('lets the caller append the next group while the full one is being written', async () => {
    const { out, waiting, chunks } = heldOutput();
    const writer = new ParquetRowWriter(table, out, undefined, { rowGroupRows: 100 });
    await writer.append(rows(0, 100)); // the first group is full: handed over, not awaited
    await settle();
    expect(waiting).toHaveLength(1); // its bytes are out, not let through
    await writer.append(rows(100, 60)); // the next group fills meanwhile
    expect(chunks).toHaveLength(0);
    // The group after waits for the one before: its append does not resolve while that write is out.
    let third = false;
    const appended = writer.append(rows(160, 40)).then(() => {
      third = true;
    });
    await settle();
    expect(third).toBe(false);
    waiting.shift()!.go();
    await appended;
    expect(third).toBe(true);
    const closed = writer.close();
    // The second group, then the footer, each after the one before.
    for (let i = 0; i < 2; i++) {
      while (waiting.length === 0) await settle();
      waiting.shift()!.go();
    }
    expect(await closed).toMatchObject({ rows: 200 });
    const back = await readWithHyparquet(Buffer.concat(chunks));
    expect(back.map((r) => r.amount).sort((a, b) => Number(a) - Number(b))).toEqual(
      rows(0, 200).map((r) => r.amount),
    );
  });

  it('throws a failed write at the next append that needs it, and settled() waits for the write', async () => {
    const { out, waiting } = heldOutput();
    const writer = new ParquetRowWriter(table, out, undefined, { rowGroupRows: 100 });
    await writer.append(rows(0, 100));
    while (waiting.length === 0) await settle();
    let settled = false;
    const done = writer.settled().then(() => {
      settled = true;
    });
    await settle();
    expect(settled).toBe(false); // a caller aborting its output waits for the write still out
    waiting.shift()!.fail(new Error('the disk is full'));
    await done;
    expect(settled).toBe(true);
    await expect(writer.append(rows(100, 100))).rejects.toThrow('the disk is full');
  });

  it('writes one group behind at a time in the process: a second writer waits for its own', async () => {
    const first = heldOutput();
    const second = heldOutput();
    const a = new ParquetRowWriter(table, first.out, undefined, { rowGroupRows: 100 });
    const b = new ParquetRowWriter(table, second.out, undefined, { rowGroupRows: 100 });
    await a.append(rows(0, 100)); // written behind
    let appended = false;
    const bAppend = b.append(rows(0, 100)).then(() => {
      appended = true;
    });
    while (second.waiting.length === 0) await settle();
    await settle();
    expect(appended).toBe(false); // b's group is written before b goes on
    second.waiting.shift()!.go();
    await bAppend;
    first.waiting.shift()!.go();
    await a.settled();
    // a's write is done: b's next group is written behind again, its append resolved before it.
    await b.append(rows(100, 100));
    while (second.waiting.length === 0) await settle();
    expect(second.chunks).toHaveLength(1);
    second.waiting.shift()!.go();
    await b.settled();
  });

  it('throws a failed write at close', async () => {
    const { out, waiting } = heldOutput();
    const writer = new ParquetRowWriter(table, out, undefined, { rowGroupRows: 100 });
    await writer.append(rows(0, 150));
    while (waiting.length === 0) await settle();
    waiting.shift()!.fail(new Error('S3 is down'));
    await expect(writer.close()).rejects.toThrow('S3 is down');
  });
});
