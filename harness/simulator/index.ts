// A local Cloudforet (SpaceONE) HTTP API simulator for tests, demos and benchmarks. It follows
// /work/shared/cloudforet-wire.md and exposes ground truth computed without HTTP.

import type { CostRecord } from './cost-rows.ts';
import type { CostChange } from './cost-store.ts';
import {
  type DomainOptions,
  type DomainsOptions,
  type DomainsSimulator,
  startDomainsSimulator,
} from './domains.ts';
import type { Fault, FaultKind } from './faults.ts';
import { LocalSimulator } from './local-simulator.ts';
import { ECHO_ENCODINGS, type EchoEncoding, encodeEcho } from './secret-echo.ts';
import { type RequestRecord, startServer } from './server.ts';
import type { CloudServiceSelection, CostTruth, RecordKind, Simulator } from './simulator-api.ts';
import type { SimulatorOptions } from './state.ts';
import type { Role } from './tokens.ts';

export type {
  CloudServiceSelection,
  CostChange,
  CostRecord,
  CostTruth,
  DomainOptions,
  DomainsOptions,
  DomainsSimulator,
  EchoEncoding,
  Fault,
  FaultKind,
  RecordKind,
  RequestRecord,
  Role,
  Simulator,
  SimulatorOptions,
};
export { ECHO_ENCODINGS, encodeEcho, startDomainsSimulator };

/** Starts a simulator on 127.0.0.1 (a free port unless `port` is given). */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const simulator = LocalSimulator.create(opts);
  simulator.serveOn(await startServer(simulator.hooks(), opts.port ?? 0));
  return simulator;
}
