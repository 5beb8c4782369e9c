// The little of parquetjs-lite (untyped CommonJS) that the bench's baseline uses.
declare module 'parquetjs-lite' {
  interface FieldDefinition {
    type: string;
    optional?: boolean;
    compression?: string;
  }
  class ParquetSchema {
    constructor(fields: Record<string, FieldDefinition>);
  }
  class ParquetWriter {
    static openFile(
      schema: ParquetSchema,
      path: string,
      opts?: { rowGroupSize?: number; useDataPageV2?: boolean },
    ): Promise<ParquetWriter>;
    appendRow(row: Record<string, unknown>): Promise<void>;
    close(): Promise<void>;
  }
  const parquet: { ParquetSchema: typeof ParquetSchema; ParquetWriter: typeof ParquetWriter };
  export default parquet;
}
