// A local Cloudforet (SpaceONE) HTTP API simulator for tests, demos and benchmarks. It follows
// /work/shared/cloudforet-wire.md and exposes ground truth computed without HTTP.

import type { CostRecord } from './cost-rows.ts';
import type { CostChange } from './cost-store.ts';
import type { Fault, FaultKind } from './faults.ts';
import { LocalSimulator } from './local-simulator.ts';
import type { RequestRecord } from './server.ts';
import type { SimulatorOptions } from './state.ts';
import type { Role } from './tokens.ts';

export type { CostChange, CostRecord, Fault, FaultKind, RequestRecord, Role, SimulatorOptions };

export interface CostTruth {
  rows: number;
  costSum: number;
  usageQuantitySum: number;
}

export interface CloudServiceSelection {
  workspaceId?: string;
  includeInactive?: boolean;
}

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

/** Starts a simulator on 127.0.0.1 (a free port unless `port` is given). */
export function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  return LocalSimulator.start(opts);
}
