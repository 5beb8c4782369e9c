// A loopback Glue Data Catalog for the real GlueClient: the AWS JSON 1.1 protocol it speaks (a POST
// with X-Amz-Target: AWSGlue.<Operation> and a JSON body, answered in JSON; an error as
// {"__type": "<Code>", "Message": …} with a 400), and the operations the focus table's catalog
// uses: GetTable, GetPartitions (paged by NextToken), BatchCreatePartition, BatchDeletePartition,
// BatchUpdatePartition. Glue's own checks, from the Glue API reference: an unknown database or
// table is EntityNotFoundException; a batch over its limit (create 100, delete 25, update 100) or a
// partition whose values do not match the table's partition keys is InvalidInputException; in a
// batch, a partition that already exists (create) or does not (delete, update) is answered in
// Errors, the others applied. Point a client at it with endpoint: responder.endpoint.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, unknown>;

export interface GlueTableInput {
  readonly Name: string;
  readonly PartitionKeys?: ReadonlyArray<{ Name: string; Type?: string }>;
  readonly StorageDescriptor?: Json;
  readonly [key: string]: unknown;
}

export interface StoredPartition {
  readonly Values: string[];
  readonly StorageDescriptor: Json;
}

export interface GlueResponder {
  readonly endpoint: string;
  /** A table's partitions as stored, by database and table. */
  partitions(database: string, table: string): StoredPartition[];
  /** Requests received, by operation. */
  readonly calls: Record<string, number>;
  /** Answer every call with 500 InternalServiceException until set back. */
  setFailing(failing: boolean): void;
  stop(): Promise<void>;
}

const LIMITS = { BatchCreatePartition: 100, BatchDeletePartition: 25, BatchUpdatePartition: 100 };
const PAGE = 1000;

class GlueError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export async function startGlue(
  databases: Record<string, readonly GlueTableInput[]>,
): Promise<GlueResponder> {
  const tables = new Map<string, { input: GlueTableInput; partitions: Map<string, StoredPartition> }>();
  for (const [db, list] of Object.entries(databases)) {
    for (const t of list) tables.set(`${db}.${t.Name.toLowerCase()}`, { input: t, partitions: new Map() });
  }
  const calls: Record<string, number> = {};
  let failing = false;

  const table = (body: Json, nameField: 'Name' | 'TableName') => {
    const db = String(body.DatabaseName ?? '');
    if (![...tables.keys()].some((k) => k.startsWith(`${db}.`))) {
      throw new GlueError('EntityNotFoundException', `Database ${db} not found.`);
    }
    const found = tables.get(`${db}.${String(body[nameField] ?? '').toLowerCase()}`);
    if (!found) throw new GlueError('EntityNotFoundException', `Table ${String(body[nameField])} not found.`);
    return found;
  };
  const checkValues = (t: { input: GlueTableInput }, values: unknown): string[] => {
    const keys = t.input.PartitionKeys ?? [];
    if (
      !Array.isArray(values) ||
      values.length !== keys.length ||
      values.some((v) => typeof v !== 'string')
    ) {
      throw new GlueError(
        'InvalidInputException',
        `The number of partition keys do not match the number of partition values`,
      );
    }
    return values as string[];
  };
  const limit = (op: keyof typeof LIMITS, list: unknown) => {
    if (!Array.isArray(list)) throw new GlueError('InvalidInputException', `${op}: a list is required`);
    if (list.length > LIMITS[op]) {
      throw new GlueError(
        'InvalidInputException',
        `1 validation error detected: Value at '${op === 'BatchUpdatePartition' ? 'entries' : op === 'BatchDeletePartition' ? 'partitionsToDelete' : 'partitionInputList'}' failed to satisfy constraint: Member must have length less than or equal to ${LIMITS[op]}`,
      );
    }
    return list as Json[];
  };
  const entryError = (values: string[], code: string, message: string) => ({
    PartitionValues: values,
    ErrorDetail: { ErrorCode: code, ErrorMessage: message },
  });
  const key = (values: string[]) => JSON.stringify(values);

  const operations: Record<string, (body: Json) => Json> = {
    GetTable: (body) => {
      const t = table(body, 'Name');
      return { Table: { ...t.input, DatabaseName: body.DatabaseName } };
    },
    GetPartitions: (body) => {
      const t = table(body, 'TableName');
      const max = body.MaxResults === undefined ? PAGE : Number(body.MaxResults);
      if (!Number.isInteger(max) || max < 1 || max > PAGE) {
        throw new GlueError('InvalidInputException', 'MaxResults must be between 1 and 1000');
      }
      const all = [...t.partitions.values()].sort((a, b) => (key(a.Values) < key(b.Values) ? -1 : 1));
      const start =
        body.NextToken === undefined ? 0 : Number(Buffer.from(String(body.NextToken), 'base64').toString());
      const page = all.slice(start, start + max);
      const next = start + max < all.length ? Buffer.from(String(start + max)).toString('base64') : undefined;
      return {
        Partitions: page.map((p) => ({ ...p, DatabaseName: body.DatabaseName, TableName: body.TableName })),
        ...(next && { NextToken: next }),
      };
    },
    BatchCreatePartition: (body) => {
      const t = table(body, 'TableName');
      const errors: Json[] = [];
      for (const p of limit('BatchCreatePartition', body.PartitionInputList)) {
        const values = checkValues(t, p.Values);
        if (t.partitions.has(key(values))) {
          errors.push(entryError(values, 'AlreadyExistsException', 'Partition already exists.'));
          continue;
        }
        t.partitions.set(key(values), {
          Values: values,
          StorageDescriptor: (p.StorageDescriptor ?? {}) as Json,
        });
      }
      return errors.length > 0 ? { Errors: errors } : {};
    },
    BatchDeletePartition: (body) => {
      const t = table(body, 'TableName');
      const errors: Json[] = [];
      for (const p of limit('BatchDeletePartition', body.PartitionsToDelete)) {
        const values = checkValues(t, p.Values);
        if (!t.partitions.delete(key(values))) {
          errors.push(entryError(values, 'EntityNotFoundException', 'Partition not found.'));
        }
      }
      return errors.length > 0 ? { Errors: errors } : {};
    },
    BatchUpdatePartition: (body) => {
      const t = table(body, 'TableName');
      const errors: Json[] = [];
      for (const e of limit('BatchUpdatePartition', body.Entries)) {
        const values = checkValues(t, e.PartitionValueList);
        const input = (e.PartitionInput ?? {}) as Json;
        const newValues = input.Values === undefined ? values : checkValues(t, input.Values);
        if (!t.partitions.has(key(values))) {
          errors.push(entryError(values, 'EntityNotFoundException', 'Partition not found.'));
          continue;
        }
        t.partitions.delete(key(values));
        t.partitions.set(key(newValues), {
          Values: newValues,
          StorageDescriptor: (input.StorageDescriptor ?? {}) as Json,
        });
      }
      return errors.length > 0 ? { Errors: errors } : {};
    },
  };

  const server = createServer(async (req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const op = target.startsWith('AWSGlue.') ? target.slice('AWSGlue.'.length) : '';
    try {
      const text = await readBody(req);
      if (
        req.method !== 'POST' ||
        !String(req.headers['content-type']).startsWith('application/x-amz-json-1.1')
      ) {
        throw new GlueError('SerializationException', 'expected a POST of application/x-amz-json-1.1');
      }
      const handler = operations[op];
      if (!handler) throw new GlueError('UnknownOperationException', `unsupported: ${target}`);
      calls[op] = (calls[op] ?? 0) + 1;
      if (failing) throw new GlueError('InternalServiceException', 'Internal service error', 500);
      answer(res, 200, handler(JSON.parse(text || '{}') as Json));
    } catch (error) {
      const e = error instanceof GlueError ? error : new GlueError('InvalidInputException', String(error));
      answer(res, e.status, { __type: e.code, Message: e.message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    partitions: (db, name) => [...(tables.get(`${db}.${name.toLowerCase()}`)?.partitions.values() ?? [])],
    calls,
    setFailing: (on) => {
      failing = on;
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function answer(res: ServerResponse, status: number, body: Json): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': `glue-${Date.now()}`,
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
