// Streams rows into a Parquet file: row groups are encoded as they fill and their bytes
// handed to the sink at once, so memory is bounded by one row group whatever the day's size.
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { parquetSchema, type TableDef } from './columns.ts';

/** Where the file's bytes go, in order; a slow consumer holds the writer back. */
export interface ByteOut {
  write(chunk: Uint8Array): Promise<void>;
}

export interface ParquetWriterOptions {
  /** Rows per row group; the memory bound. */
  readonly rowGroupRows?: number;
  readonly kvMetadata?: Record<string, string>;
}

export const DEFAULT_ROW_GROUP_ROWS = 50_000;

export class ParquetRowWriter<R, C> {
  private readonly table: TableDef<R, C>;
  private readonly context: C;
  private readonly bytes: StreamingByteWriter;
  private readonly writer: ParquetWriter;
  private readonly rowGroupRows: number;
  private buffers: unknown[][];
  private buffered = 0;
  rows = 0;

  constructor(table: TableDef<R, C>, out: ByteOut, context: C, opts: ParquetWriterOptions = {}) {
    this.table = table;
    this.context = context;
    this.rowGroupRows = opts.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
    this.buffers = table.columns.map(() => []);
    this.bytes = new StreamingByteWriter(out);
    this.writer = new ParquetWriter({
      writer: this.bytes,
      schema: parquetSchema(table as TableDef<never, never>),
      codec: 'SNAPPY',
      createdBy: 'cloudforet-export',
      kvMetadata: Object.entries({
        table: table.name,
        schema_version: String(table.schemaVersion),
        ...opts.kvMetadata,
      }).map(([key, value]) => ({ key, value })),
    });
  }

  /** Map and buffer records; encodes a row group whenever one is full. */
  async append(records: readonly R[]): Promise<void> {
    const { columns } = this.table;
    for (const record of records) {
      for (let i = 0; i < columns.length; i++) this.buffers[i]!.push(columns[i]!.value(record, this.context));
      this.rows++;
      if (++this.buffered >= this.rowGroupRows) await this.flushGroup();
    }
  }

  /** Write the footer; resolves when every byte has been handed to the output. */
  async close(): Promise<{ rows: number; bytes: number }> {
    await this.flushGroup();
    await this.writer.finish();
    return { rows: this.rows, bytes: this.bytes.offset };
  }

  private async flushGroup(): Promise<void> {
    if (this.buffered === 0) return;
    const columnData = this.table.columns.map((c, i) => ({ name: c.name, data: this.buffers[i]! }));
    const size = this.buffered;
    this.buffers = this.table.columns.map(() => []);
    this.buffered = 0;
    await this.writer.write({ columnData: columnData as never, rowGroupSize: size });
  }
}

/** hyparquet's ByteWriter whose flush hands the bytes written so far to the output. */
class StreamingByteWriter extends ByteWriter {
  private readonly out: ByteOut;
  constructor(out: ByteOut) {
    super(1 << 20);
    this.out = out;
  }

  flush(): Promise<void> {
    if (this.index === 0) return Promise.resolve();
    const chunk = new Uint8Array(this.buffer.slice(0, this.index));
    this.index = 0;
    return this.out.write(chunk);
  }

  override finish(): Promise<void> {
    return this.flush();
  }
}
