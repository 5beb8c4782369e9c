// Streams rows into a Parquet file. Each column is encoded as its values arrive (a dictionary,
// or plain bytes once it has too many distinct values), so a row group holds bytes, never row
// objects; a full row group is compressed on zlib's thread pool and handed to the sink at once.
import { createGzip, gzipSync } from 'node:zlib';
import type { ColumnChunk, FileMetaData, PageHeader, RowGroup, SchemaElement } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { parquetSchema, type TableDef } from './columns.ts';
import { ColumnBuffer, type ColumnPages } from './column-buffer.ts';
import { forEachLimit } from '../pool.ts';
import type { ByteOut } from '../storage/sink.ts';

export interface ParquetWriterOptions {
  /** Rows per row group; the memory bound. */
  readonly rowGroupRows?: number;
  readonly kvMetadata?: Record<string, string>;
}

/**
 * Chosen with tools/bench (README, Performance): memory grows with the row group, not the file,
 * and 25k rows cost 1-2 % in size and ~5 % in CPU against 100k while keeping big days ~60 MB lower.
 */
export const DEFAULT_ROW_GROUP_ROWS = 25_000;
const GZIP_LEVEL = 6;
/** zlib's default output buffer, kept for pages that compress to more. */
const GZIP_CHUNK = 16 * 1024;
/**
 * Pages up to this size are compressed on the main thread, in microseconds. Most pages of a row
 * group are this small (a dictionary of a few entries, the levels and indexes of a column of few
 * values), and each round trip to zlib's pool waits for the main thread between other units'
 * pages: with every page sent there, a row group took ~200 ms to flush, and everything it held
 * (the last page's records among them) lived long enough to be promoted to the old generation.
 */
const GZIP_INLINE_BYTES = 4096;
const MAGIC = Buffer.from('PAR1');
const NO_RECORDS: readonly never[] = [];

export class ParquetRowWriter<R, C> {
  private readonly table: TableDef<R, C>;
  private readonly context: C;
  private readonly out: ByteOut;
  private readonly schema: SchemaElement[];
  private readonly columns: ColumnBuffer[];
  private readonly rowGroupRows: number;
  private readonly kvMetadata: { key: string; value: string }[];
  private readonly rowGroups: RowGroup[] = [];
  private buffered = 0;
  private offset = 0;
  rows = 0;

  constructor(table: TableDef<R, C>, out: ByteOut, context: C, opts: ParquetWriterOptions = {}) {
    this.table = table;
    this.context = context;
    this.out = out;
    this.rowGroupRows = opts.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
    this.schema = parquetSchema(table as TableDef<never, never>);
    this.columns = this.schema.slice(1).map((element) => new ColumnBuffer(element));
    this.kvMetadata = Object.entries({
      table: table.name,
      schema_version: String(table.schemaVersion),
      ...opts.kvMetadata,
    }).map(([key, value]) => ({ key, value }));
  }

  /**
   * Map and encode records column by column; writes a row group whenever one is full. Records
   * all encoded are let go before a row group is written (see listPages): a caller that lets go
   * of them too after calling lets them die young.
   */
  async append(records: readonly R[]): Promise<void> {
    const defs = this.table.columns;
    let rest: readonly R[] = records;
    records = NO_RECORDS; // nor the parameter
    for (let from = 0; from < rest.length; ) {
      const to = Math.min(rest.length, from + this.rowGroupRows - this.buffered);
      for (let i = 0; i < defs.length; i++) {
        this.columns[i]!.addRows(rest, from, to, defs[i]!.value, this.context);
      }
      this.buffered += to - from;
      this.rows += to - from;
      from = to;
      if (this.buffered >= this.rowGroupRows) {
        if (from === rest.length) rest = NO_RECORDS;
        await this.flushGroup();
      }
    }
  }

  /** Write the footer; resolves when every byte has been handed to the output. */
  async close(): Promise<{ rows: number; bytes: number }> {
    // Readers disagree on a footer with no row groups (arrow-rs rejects it): a day without rows
    // has no object at all, so callers remove the key instead of closing an empty file.
    if (this.rows === 0) throw new Error(`parquet: no rows appended to the ${this.table.name} file`);
    await this.flushGroup();
    for (const column of this.columns) column.release();
    const footer = new ByteWriter();
    const metadata: FileMetaData = {
      version: 2,
      schema: this.schema,
      num_rows: BigInt(this.rows),
      row_groups: this.rowGroups,
      key_value_metadata: this.kvMetadata,
      created_by: 'cloudforet-export',
      metadata_length: 0,
    };
    writeMetadata(footer, metadata);
    await this.emit([...(this.offset === 0 ? [MAGIC] : []), footer.getBytes(), MAGIC]);
    return { rows: this.rows, bytes: this.offset };
  }

  private async flushGroup(): Promise<void> {
    if (this.buffered === 0) return;
    const numRows = this.buffered;
    this.buffered = 0;
    const pages = this.columns.map((c) => c.takePages());
    // Two at a time: zlib's pool has four threads, and each deflate holds ~256 KB while it runs.
    const compressed: Compressed[] = [];
    await forEachLimit(pages, 2, async (p, i) => {
      compressed[i] = {
        dictionary: p.dictionary && (await this.compress([p.dictionary])),
        data: await this.compress(p.data),
      };
    });
    for (const column of this.columns) column.reset();
    const head = this.offset === 0 ? [MAGIC] : [];
    const group = assembleRowGroup(pages, compressed, this.offset + head.length * MAGIC.length, numRows);
    this.rowGroups.push(group.rowGroup);
    await this.emit([...head, ...group.parts]);
  }

  private compress(parts: Uint8Array[]): Promise<Uint8Array[]> | Uint8Array[] {
    return byteLength(parts) <= GZIP_INLINE_BYTES ? [gzipSmall(parts)] : gzipParts(parts);
  }

  private async emit(parts: Uint8Array[]): Promise<void> {
    const chunk = Buffer.concat(parts);
    this.offset += chunk.length;
    await this.out.write(chunk);
  }
}

/** Page headers, pages and the row group's metadata, laid out from `start` in the file. */
function assembleRowGroup(
  pages: ColumnPages[],
  compressed: Compressed[],
  start: number,
  numRows: number,
): { parts: Uint8Array[]; rowGroup: RowGroup } {
  const parts: Uint8Array[] = [];
  let at = start;
  let uncompressedTotal = 0;
  const columns: ColumnChunk[] = pages.map((p, i) => {
    const zipped = compressed[i]!;
    const chunkStart = at;
    let uncompressed = 0;
    const page = (header: PageHeader, body: Uint8Array[]) => {
      const bytes = new ByteWriter(64);
      writePageHeader(bytes, header);
      parts.push(bytes.getBytes(), ...body);
      uncompressed += bytes.offset + header.uncompressed_page_size;
      at += bytes.offset + header.compressed_page_size;
    };
    if (p.dictionary && zipped.dictionary) {
      page(
        {
          type: 'DICTIONARY_PAGE',
          uncompressed_page_size: p.dictionary.length,
          compressed_page_size: byteLength(zipped.dictionary),
          dictionary_page_header: { num_values: p.dictionarySize, encoding: 'PLAIN' },
        },
        zipped.dictionary,
      );
    }
    const dataStart = at;
    page(
      {
        type: 'DATA_PAGE',
        uncompressed_page_size: byteLength(p.data),
        compressed_page_size: byteLength(zipped.data),
        data_page_header: {
          num_values: numRows,
          encoding: p.encoding,
          definition_level_encoding: 'RLE',
          repetition_level_encoding: 'RLE',
        },
      },
      zipped.data,
    );
    uncompressedTotal += uncompressed;
    return {
      file_offset: BigInt(chunkStart),
      meta_data: {
        type: p.element.type!,
        encodings: p.dictionary ? ['PLAIN', 'RLE', 'RLE_DICTIONARY'] : ['PLAIN', 'RLE'],
        path_in_schema: [p.element.name],
        codec: 'GZIP',
        num_values: BigInt(numRows),
        total_uncompressed_size: BigInt(uncompressed),
        total_compressed_size: BigInt(at - chunkStart),
        data_page_offset: BigInt(dataStart),
        dictionary_page_offset: p.dictionary ? BigInt(chunkStart) : undefined,
        statistics: p.statistics,
      },
    };
  });
  const rowGroup: RowGroup = {
    columns,
    total_byte_size: BigInt(uncompressedTotal),
    num_rows: BigInt(numRows),
    file_offset: BigInt(start),
    total_compressed_size: BigInt(at - start),
  };
  return { parts, rowGroup };
}

/** A page compressed, as the chunks the compressor gave: they are copied once, into the row group. */
type Compressed = { dictionary?: Uint8Array[]; data: Uint8Array[] };

const byteLength = (parts: Uint8Array[]) => parts.reduce((n, part) => n + part.length, 0);

/** gzip of a small page at once; the same bytes as gzipParts gives. */
function gzipSmall(parts: Uint8Array[]): Buffer {
  const input = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  return gzipSync(input, { level: GZIP_LEVEL, chunkSize: gzipChunkSize(input.length) });
}

/** An output buffer the size of the input and gzip's few bytes more, up to zlib's default. */
const gzipChunkSize = (inputBytes: number) => Math.min(GZIP_CHUNK, Math.ceil((inputBytes + 64) / 64) * 64);

/**
 * gzip of the parts as one stream, without first copying them together. zlib's output buffer is
 * 16 KB unless told otherwise, allocated with the stream: most pages (a dictionary of a few
 * entries, the levels and indexes of a constant column) compress to tens of bytes, so a buffer
 * sized to the input (gzip adds at most ~0.1 % and 18 bytes) saves ~0.7 MB a row group. The
 * bytes out are the same whatever the buffer's size.
 */
function gzipParts(parts: Uint8Array[]): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const gzip = createGzip({ level: GZIP_LEVEL, chunkSize: gzipChunkSize(byteLength(parts)) });
    const out: Buffer[] = [];
    gzip.on('data', (chunk: Buffer) => out.push(chunk));
    gzip.on('end', () => resolve(out));
    gzip.on('error', reject);
    for (const part of parts) gzip.write(part);
    gzip.end();
  });
}
