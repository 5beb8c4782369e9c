// What a simulator offers its users: the HTTP API plus ground truth computed without HTTP.
import type { CostRecord } from './cost-rows.ts';
import type { CostChange } from './cost-store.ts';
import type { Fault } from './faults.ts';
import type { RequestRecord } from './server.ts';
import type { Role } from './tokens.ts';

export interface CostTruth {
  rows: number;
  costSum: number;
  usageQuantitySum: number;
}

export interface CloudServiceSelection {
  workspaceId?: string;
  includeInactive?: boolean;
}

/** Identity and routing records, by the table names the exporter gives them. */
export type RecordKind =
  | 'workspaces'
  | 'project_groups'
  | 'projects'
  | 'service_accounts'
  | 'trusted_accounts'
  | 'providers'
  | 'data_source_accounts';

export interface Simulator {
  readonly url: string;
  readonly domainId: string;
  close(): Promise<void>;
  issueToken(opts?: {
    role?: Role;
    workspaceId?: string;
    expiresInSeconds?: number;
    badSignature?: boolean;
  }): string;
  setLatency(ms: number): void;
  dataSourceIds(): string[];
  workspaceIds(): string[];
  costTruth(dataSourceId: string, date: string): CostTruth;
  costRows(dataSourceId: string, date: string): CostRecord[];
  cloudServiceTruth(opts?: CloudServiceSelection): Map<string, number>;
  cloudServiceRecords(opts?: CloudServiceSelection): Record<string, unknown>[];
  /** The records of a kind as the API shows them, the whole domain or what one workspace sees. */
  records(kind: RecordKind, workspaceId?: string): Record<string, unknown>[];
  resync(dataSourceId: string, date: string, change?: CostChange): void;
  resyncDuringPaging(opts: {
    path?: string;
    afterRequests: number;
    dataSourceId: string;
    date: string;
    change?: CostChange;
  }): void;
  setJobInProgress(dataSourceId: string, inProgress: boolean): void;
  injectFault(fault: Fault): void;
  readonly requests: Array<RequestRecord>;
  resetRequestLog(): void;
}
