// The focus table's partitions in the Glue Data Catalog through the real SDK client: the
// CatalogPort of focus-catalog.ts. A partition takes the table's storage descriptor (its columns
// and SerDe, read once with GetTable) with its own location, so its schema is the table's (Athena
// requires a partition's schema to be compatible with its table's). Batch calls answer failures
// per entry instead of throwing: any is thrown here, so a run never counts a call it lost.
import {
  BatchCreatePartitionCommand,
  BatchDeletePartitionCommand,
  BatchUpdatePartitionCommand,
  GetPartitionsCommand,
  GetTableCommand,
  type GlueClient,
  type StorageDescriptor,
} from '@aws-sdk/client-glue';
import type { CatalogPartition, CatalogPort } from './focus-catalog.ts';

/** Glue's per-call limits (API reference: BatchCreatePartition 100, BatchDeletePartition 25, BatchUpdatePartition 100). */
const CREATE_BATCH = 100;
const DELETE_BATCH = 25;
const UPDATE_BATCH = 100;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function failed(
  op: string,
  errors:
    | ReadonlyArray<{
        PartitionValues?: string[];
        ErrorDetail?: { ErrorCode?: string; ErrorMessage?: string };
      }>
    | undefined,
): void {
  if (!errors || errors.length === 0) return;
  const first = errors[0]!;
  throw new Error(
    `Glue ${op}: ${errors.length} partition(s) failed, first ${JSON.stringify(first.PartitionValues)}: ` +
      `${first.ErrorDetail?.ErrorCode} ${first.ErrorDetail?.ErrorMessage}`,
  );
}

export function gluePartitions(client: GlueClient, databaseName: string, tableName: string): CatalogPort {
  let descriptor: Promise<StorageDescriptor> | undefined;
  const tableDescriptor = () => {
    descriptor ??= client
      .send(new GetTableCommand({ DatabaseName: databaseName, Name: tableName }))
      .then((answer) => {
        const sd = answer.Table?.StorageDescriptor;
        if (!sd) throw new Error(`Glue table ${databaseName}.${tableName} has no storage descriptor`);
        return sd;
      });
    return descriptor;
  };
  const input = async (p: CatalogPartition) => ({
    Values: [...p.values],
    StorageDescriptor: { ...(await tableDescriptor()), Location: p.location },
  });
  return {
    async list() {
      const partitions: CatalogPartition[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new GetPartitionsCommand({
            DatabaseName: databaseName,
            TableName: tableName,
            MaxResults: 1000,
            NextToken: token,
          }),
        );
        for (const p of page.Partitions ?? []) {
          const [month, day] = p.Values ?? [];
          partitions.push({
            values: [String(month), String(day)],
            location: String(p.StorageDescriptor?.Location),
          });
        }
        token = page.NextToken;
      } while (token);
      return partitions;
    },
    async drop(partitions) {
      for (const batch of chunks(partitions, DELETE_BATCH)) {
        const answer = await client.send(
          new BatchDeletePartitionCommand({
            DatabaseName: databaseName,
            TableName: tableName,
            PartitionsToDelete: batch.map((p) => ({ Values: [...p.values] })),
          }),
        );
        failed('BatchDeletePartition', answer.Errors);
      }
    },
    async create(partitions) {
      for (const batch of chunks(partitions, CREATE_BATCH)) {
        const answer = await client.send(
          new BatchCreatePartitionCommand({
            DatabaseName: databaseName,
            TableName: tableName,
            PartitionInputList: await Promise.all(batch.map(input)),
          }),
        );
        failed('BatchCreatePartition', answer.Errors);
      }
    },
    async relocate(partitions) {
      for (const batch of chunks(partitions, UPDATE_BATCH)) {
        const answer = await client.send(
          new BatchUpdatePartitionCommand({
            DatabaseName: databaseName,
            TableName: tableName,
            Entries: await Promise.all(
              batch.map(async (p) => ({ PartitionValueList: [...p.values], PartitionInput: await input(p) })),
            ),
          }),
        );
        failed('BatchUpdatePartition', answer.Errors);
      }
    },
  };
}
