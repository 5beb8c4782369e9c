// What the cost-report pass is given, and its one way to read a whole listing.
import type { CloudforetClient } from '../../cloudforet/client.ts';
import { type ApiRecord, type ListRequest, listPages } from '../../cloudforet/pager.ts';
import type { Compression } from '../../export/listing-export.ts';
import type { Logger } from '../../log.ts';
import type { Sink } from '../../storage/sink.ts';

export interface ReportArchiveDeps {
  readonly client: CloudforetClient;
  readonly sink: Sink;
  readonly runId: string;
  readonly log: Logger;
  readonly now?: () => Date;
  readonly signal?: AbortSignal;
  readonly compression?: Compression;
}

export async function listAll(deps: ReportArchiveDeps, list: ListRequest): Promise<ApiRecord[]> {
  const out: ApiRecord[] = [];
  for await (const page of listPages(deps.client, list, deps.signal)) out.push(...page);
  return out;
}
