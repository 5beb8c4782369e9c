// When a unit ends, so does every request it started: a page asked ahead that is still being
// retried is aborted, not abandoned, and no retry starts after the unit has failed or been aborted.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudforetClient } from '../../../functions/lib/cloudforet/client.ts';
import { exportListing } from '../../../functions/lib/export/listing-export.ts';
import { dirSink } from '../../../functions/lib/storage/dir-sink.ts';
import { inventorySources } from '../../../functions/lib/tables/inventory.ts';

const TOTAL = 5_000;
const QUIET_MS = 3_000;

/**
 * A listing of 5,000 records: the first page answers; the page at `failStart` answers `failStatus`
 * once `failAfterMs` have passed; every other page answers 503 (retryable) at once, for ever.
 */
async function startListing(opts: { failStart?: number; failStatus?: number; failAfterMs?: number }) {
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      arrivals.push(Date.now());
      const { start, limit } = JSON.parse(Buffer.concat(chunks).toString()).query.page;
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (start === 1) {
        const results = Array.from({ length: limit }, (_, i) => ({
          region_id: `region-${String(i + 1).padStart(12, '0')}`,
          region_code: `r-${i + 1}`,
        }));
        answer(200, { results, total_count: TOTAL });
      } else if (start === opts.failStart) {
        const detail = { code: 'ERROR_AUTHENTICATE_FAILURE', message: 'Token is expired.' };
        setTimeout(() => answer(opts.failStatus ?? 401, { detail }), opts.failAfterMs ?? 0);
      } else {
        answer(503, { detail: { code: 'ERROR_GRPC_CONNECTION', message: 'Server is unavailable.' } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals };
}

const regions = inventorySources.find((s) => s.table.name === 'regions')!;

describe('cancellation of a unit', () => {
  let dir: string;
  let server: Server;
  let dispatcher: Agent;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cancel-'));
    dispatcher = new Agent();
  });
  afterEach(async () => {
    await dispatcher.close();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const exportRegions = (url: string, signal?: AbortSignal) => {
    // Real backoff (250 ms, 500 ms, 1 s, …): a retry left running would reach the server within the quiet time.
    const client = new CloudforetClient({ endpoint: url, token: 't', dispatcher });
    const run = exportListing(
      { client, sink: dirSink(dir), signal },
      {
        list: regions.list,
        table: regions.table,
        context: { exportedAtMs: 0 },
        key: 'regions/snapshot_date=2026-11-23/domain.parquet',
        manifestKey: '_manifests/regions/snapshot_date=2026-11-23/domain.json',
        kvMetadata: {},
        manifest: () => ({}),
      },
    );
    return { client, run };
  };

  it('sends no request for the listing after it failed, while a page ahead was being retried', async () => {
    const listing = await startListing({ failStart: 1001, failAfterMs: 100 });
    server = listing.server;
    const { client, run } = exportRegions(listing.url);

    const failure = await run.catch((e: unknown) => e);
    const failedAt = Date.now();
    const retriesAtFailure = client.retries;
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));

    expect(failure).toMatchObject({ code: 'CLOUDFORET_ERROR_AUTHENTICATE_FAILURE' });
    expect(retriesAtFailure).toBeGreaterThan(0); // the page ahead (start 2001) was being retried
    expect(listing.arrivals.filter((t) => t > failedAt)).toEqual([]);
    expect(client.retries).toBe(retriesAtFailure);
    expect(await readdir(dir)).toEqual([]);
  });

  it('ends at once, with no request after, when the unit is aborted from outside', async () => {
    const listing = await startListing({});
    server = listing.server;
    const unit = new AbortController();
    const { run } = exportRegions(listing.url, unit.signal);

    setTimeout(() => unit.abort(new Error('deadline')), 300);
    const failure = await run.catch((e: unknown) => e);
    const endedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));

    expect(failure).toMatchObject({ retryable: false });
    expect(String((failure as Error).message)).toContain('abandoned');
    expect(listing.arrivals.filter((t) => t > endedAt)).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
  });
});
