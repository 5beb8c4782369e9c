// The Parquet page codecs a run may be configured with; the Lambda environment, the CLI and the
// CDK settings accept exactly these (parquet/compression.ts implements them).

export const COMPRESSIONS = ['ZSTD', 'GZIP'] as const;
export type Compression = (typeof COMPRESSIONS)[number];
/** Smaller and cheaper than GZIP on the bench's rows (docs/performance.md). */
export const DEFAULT_COMPRESSION: Compression = 'ZSTD';

/** The codec `text` names (any case, trimmed), or undefined when it names none. */
export function parseCompression(text: string): Compression | undefined {
  const upper = text.trim().toUpperCase();
  return COMPRESSIONS.find((c) => c === upper);
}
