// Streams rows into a Parquet file. Each column is encoded as its values arrive (a dictionary,
// or plain bytes once it has too many distinct values), so a row group holds bytes, never row
// objects; a full row group is compressed on zlib's thread pool and handed to the sink at once.
import type { ColumnChunk, FileMetaData, PageHeader, RowGroup, SchemaElement } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { forEachLimit } from '../pool.ts';
import type { ByteOut } from '../storage/sink.ts';
import { clusterOrder } from './cluster.ts';
import { ColumnBuffer, type ColumnPages } from './column-buffer.ts';
import { parquetSchema, type TableDef } from './columns.ts';
import {
  byteLength,
  type Compression,
  compressParts,
  compressSmall,
  DEFAULT_COMPRESSION,
  type PageContent,
} from './compression.ts';
import { MapColumnBuffer } from './map-column.ts';

export interface ParquetWriterOptions {
  /** Rows per row group; the memory bound. */
  readonly rowGroupRows?: number;
  readonly kvMetadata?: Record<string, string>;
  /** Page codec; DEFAULT_COMPRESSION unless set. */
  readonly compression?: Compression;
}

/**
 * Chosen with tools/bench (docs/performance.md): memory grows with the row group, not the file,
 * and 25k rows cost 1-2 % in size and ~5 % in CPU against 100k while keeping big days ~60 MB lower.
 */
export const DEFAULT_ROW_GROUP_ROWS = 25_000;
/**
 * Pages up to this size are compressed on the main thread, in microseconds. Most pages of a row
 * group are this small (a dictionary of a few entries, the levels and indexes of a column of few
 * values), and each round trip to zlib's pool waits for the main thread between other units'
 * pages: with every page sent there, a row group took ~200 ms to flush, and everything it held
 * (the last page's records among them) lived long enough to be promoted to the old generation.
 */
const INLINE_BYTES = 4096;
const MAGIC = Buffer.from('PAR1');
const NO_RECORDS: readonly never[] = [];

export class ParquetRowWriter<R, C> {
  private readonly table: TableDef<R, C>;
  private readonly context: C;
  private readonly out: ByteOut;
  private readonly schema: SchemaElement[];
  /** One encoder a table column; a map column is two leaves in the file. */
  private readonly columns: Array<ColumnBuffer | MapColumnBuffer>;
  /** The columns rows are ordered by inside a row group (table.clusterBy), in turn. */
  private readonly clusterBy: ColumnBuffer[];
  private readonly rowGroupRows: number;
  private readonly codec: Compression;
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
    this.codec = opts.compression ?? DEFAULT_COMPRESSION;
    this.schema = parquetSchema(table as TableDef<never, never>);
    let at = 1;
    this.columns = table.columns.map((c) => {
      const element = this.schema[at]!;
      at += c.type === 'map' ? 4 : 1;
      return c.type === 'map' ? new MapColumnBuffer(c.name) : new ColumnBuffer(element);
    });
    this.clusterBy = (table.clusterBy ?? []).map((name) => {
      const column = this.columns.find(
        (c): c is ColumnBuffer => c instanceof ColumnBuffer && c.element.name === name,
      );
      if (!column) throw new Error(`parquet: ${table.name} clusters by ${name}, which it does not have`);
      return column;
    });
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
    const order = this.clusterBy.length > 0 ? clusterOrder(this.clusterBy, numRows) : undefined;
    if (order) for (const column of this.columns) column.permute(order);
    const pages = this.columns.flatMap((c) => c.takePages());
    // Two at a time: zlib's pool has four threads, and each deflate holds ~256 KB while it runs.
    const compressed: Compressed[] = [];
    await forEachLimit(pages, 2, async (p, i) => {
      // UTF-8 values are text; the indexes of a dictionary-encoded column are not.
      const text = p.element.type === 'BYTE_ARRAY';
      const data: Uint8Array[][] = [];
      for (const page of p.pages)
        data.push(await this.compress(page.parts, text && p.encoding === 'PLAIN' ? 'text' : 'other'));
      const dictionary = p.dictionary && (await this.compress([p.dictionary], text ? 'text' : 'other'));
      compressed[i] = smaller(p, { codec: this.codec, dictionary, data });
    });
    const head = this.offset === 0 ? [MAGIC] : [];
    const start = this.offset + head.length * MAGIC.length;
    const group = assembleRowGroup(pages, compressed, { start, numRows });
    this.rowGroups.push(group.rowGroup);
    // emit copies the parts at once; an uncompressed chunk's are the columns' own memory.
    const written = this.emit([...head, ...group.parts]);
    for (const column of this.columns) column.reset();
    await written;
  }

  private compress(parts: Uint8Array[], content: PageContent): Promise<Uint8Array[]> | Uint8Array[] {
    return byteLength(parts) <= INLINE_BYTES
      ? [compressSmall(this.codec, parts, content)]
      : compressParts(this.codec, parts, content);
  }

  private async emit(parts: Uint8Array[]): Promise<void> {
    const chunk = Buffer.concat(parts);
    this.offset += chunk.length;
    await this.out.write(chunk);
  }
}

interface GroupLayout {
  /** Where the row group begins in the file. */
  readonly start: number;
  readonly numRows: number;
}

/** Page headers, pages and the row group's metadata, laid out from `start` in the file. */
function assembleRowGroup(
  pages: ColumnPages[],
  compressed: Compressed[],
  layout: GroupLayout,
): { parts: Uint8Array[]; rowGroup: RowGroup } {
  const parts: Uint8Array[] = [];
  let at = layout.start;
  let uncompressedTotal = 0;
  const columns = pages.map((p, i) => {
    const chunk = columnChunk(p, compressed[i]!, at, layout, parts);
    at += chunk.compressed;
    uncompressedTotal += chunk.uncompressed;
    return chunk.column;
  });
  const rowGroup: RowGroup = {
    columns,
    total_byte_size: BigInt(uncompressedTotal),
    num_rows: BigInt(layout.numRows),
    file_offset: BigInt(layout.start),
    total_compressed_size: BigInt(at - layout.start),
  };
  return { parts, rowGroup };
}

/** One column chunk from `chunkStart`: its pages appended to `parts`, and its metadata. */
function columnChunk(
  p: ColumnPages,
  zipped: Compressed,
  chunkStart: number,
  layout: GroupLayout,
  parts: Uint8Array[],
): { column: ColumnChunk; compressed: number; uncompressed: number } {
  let at = chunkStart;
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
  p.pages.forEach((data, i) => {
    const body = zipped.data[i]!;
    const levels = { definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' } as const;
    page(
      {
        type: 'DATA_PAGE',
        uncompressed_page_size: byteLength(data.parts),
        compressed_page_size: byteLength(body),
        data_page_header: { num_values: data.rows, encoding: p.encoding, ...levels },
      },
      body,
    );
  });
  const column: ColumnChunk = {
    file_offset: BigInt(chunkStart),
    meta_data: {
      type: p.element.type!,
      encodings: p.dictionary ? ['PLAIN', 'RLE', 'RLE_DICTIONARY'] : ['PLAIN', 'RLE'],
      path_in_schema: [...(p.path ?? [p.element.name])],
      codec: zipped.codec,
      num_values: BigInt(p.values ?? layout.numRows),
      total_uncompressed_size: BigInt(uncompressed),
      total_compressed_size: BigInt(at - chunkStart),
      data_page_offset: BigInt(dataStart),
      dictionary_page_offset: p.dictionary ? BigInt(chunkStart) : undefined,
      statistics: p.statistics,
      encoding_stats: encodingStats(p),
    },
  };
  return { column, compressed: at - chunkStart, uncompressed };
}

/**
 * Which encodings the pages use. Trino reads these to tell a chunk whose data pages are all
 * dictionary-encoded, the only kind whose dictionary may rule out a row group for a filter.
 */
function encodingStats(p: ColumnPages) {
  const data = { page_type: 'DATA_PAGE', encoding: p.encoding, count: p.pages.length } as const;
  if (!p.dictionary) return [data];
  return [{ page_type: 'DICTIONARY_PAGE', encoding: 'PLAIN', count: 1 } as const, data];
}

/**
 * A column chunk's pages compressed, as the chunks the compressor gave (copied once, into the
 * row group), or left as they are with codec UNCOMPRESSED.
 */
type Compressed = { codec: Compression | 'UNCOMPRESSED'; dictionary?: Uint8Array[]; data: Uint8Array[][] };

/**
 * The chunk as it is when the codec made it no smaller: a page of a few bytes (one value's
 * dictionary, the indexes of a column of one value) grows by the frame's header and checksum.
 * Parquet names the codec per column chunk, so the choice is the chunk's, not each page's.
 */
function smaller(p: ColumnPages, zipped: Compressed): Compressed {
  const raw = (p.dictionary?.length ?? 0) + p.pages.reduce((n, page) => n + byteLength(page.parts), 0);
  const packed = byteLength(zipped.dictionary ?? []) + zipped.data.reduce((n, d) => n + byteLength(d), 0);
  if (packed < raw) return zipped;
  return {
    codec: 'UNCOMPRESSED',
    dictionary: p.dictionary && [p.dictionary],
    data: p.pages.map((page) => page.parts),
  };
}
