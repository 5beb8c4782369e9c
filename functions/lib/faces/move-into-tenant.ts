// The move's face, `cloudforet-export move-into-tenant`: moves a single-domain destination into
// one tenant's folder of it, tenants/<id>/, so that the tenant's runs export nothing again
// (destination/tenant-move.ts). Reads and writes the destination only. Its input:
// {"tenant", "deleteSource", "force"}; the sink is the whole destination, not the tenant's folder.

import { type MoveReport, moveIntoTenant } from '../destination/tenant-move.ts';
import { EventError } from '../errors.ts';
import { eventFields, flag } from '../input/event-shape.ts';
import { connectSink } from '../lambda/connect-sink.ts';
import type { Sink } from '../storage/sink.ts';
import { tenantIdProblem } from '../tenant.ts';
import type { Face } from './face.ts';

export type { MoveReport };

export interface MoveRequest {
  readonly tenant: string;
  readonly deleteSource: boolean;
  readonly force: boolean;
}

const EXAMPLE = '{"tenant": "acme", "deleteSource": true}';

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export const moveIntoTenantFace: Face<{ readonly sink: Sink }, MoveRequest, MoveReport> = {
  label: 'move-into-tenant',
  needs: 'sink',
  reportsProgress: true,
  connect: connectSink,
  parse: (input) => {
    const fields = eventFields(input, ['tenant', 'deleteSource', 'force'], EXAMPLE) ?? {};
    const problem =
      fields.tenant === undefined ? 'the tenant to move into is required' : tenantIdProblem(fields.tenant);
    if (problem) throw new EventError('EVENT_BAD_TENANT', `"tenant": ${problem}`);
    return {
      tenant: fields.tenant as string,
      deleteSource: flag(fields, 'deleteSource', 'EVENT_BAD_FORCE'),
      force: flag(fields, 'force', 'EVENT_BAD_FORCE'),
    };
  },
  run: ({ sink, signal, onProgress, concurrency }, request) => {
    const started = Date.now();
    return moveIntoTenant(sink, {
      ...request,
      concurrency,
      ...(signal && { signal }),
      onProgress: (p) =>
        onProgress?.({
          unitsDone: p.done,
          unitsTotal: p.total,
          rows: 0,
          elapsedMs: Date.now() - started,
          noun: 'objects',
          amount: p.bytes > 0 ? `${megabytes(p.bytes)} (${p.phase})` : p.phase,
        }),
    });
  },
  describe: (r) => [
    r.outcome === 'moved'
      ? `moved ${r.from} into ${r.to} (domain ${r.domainId}): ${r.objects} objects, ${megabytes(r.bytes)}, in ${(r.elapsedMs / 1000).toFixed(1)} s` +
        (r.resumed > 0 ? ` (${r.resumed} found copied by an earlier run and checked)` : '')
      : `${r.to} already holds the move of ${r.from} (domain ${r.domainId}): ${r.objects} objects, ${megabytes(r.bytes)}`,
    `  checksums: ${r.identical} objects read back byte for byte as the source's (SHA-256), ` +
      `${r.rewritten} manifests rewritten to the ETag or mtime of their object's verified copy, nothing else changed`,
    `  digest of every object's key and SHA-256: source ${r.digest}, copy ${r.copyDigest}` +
      (r.rewritten > 0 ? ` (apart by the ${r.rewritten} rewritten manifests)` : ' (equal)'),
    r.deleted > 0 || r.kept.length > 0
      ? `  source: ${r.deleted} objects deleted, each read back as its verified copy first` +
        (r.kept.length > 0
          ? `; ${r.kept.length} kept (changed or new since the copy): ${r.kept.slice(0, 5).join(', ')}`
          : '')
      : `  source kept as it was: run again with --delete-source to remove it once the tenant's runs are checked`,
  ],
  failure: (r) =>
    r.kept.length > 0 ? `${r.kept.length} source object(s) kept: changed since their copy` : undefined,
  figures: () => ({}),
};
