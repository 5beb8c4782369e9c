// The inventory's two stages: every cloud-service page fetched and parsed (its own limit), and the
// cloud-service table exported by runInventoryExport, the same listing, to a local directory.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CloudforetClient } from '../../functions/lib/cloudforet/client.ts';
import { listPages } from '../../functions/lib/cloudforet/pager.ts';
import { runInventoryExport } from '../../functions/lib/inventory/run.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';
import { inventorySources } from '../../functions/lib/tables/inventory.ts';

const cloudServices = inventorySources.filter((s) => s.table.name === 'cloud_services');

/** The request runInventoryExport makes for ACTIVE cloud services, so recorded answers serve both. */
export async function fetchCloudServices(client: CloudforetClient): Promise<{ rows: number; bytes: number }> {
  let rows = 0;
  for await (const page of listPages(client, { ...cloudServices[0]!.list, filter: [] })) rows += page.length;
  return { rows, bytes: 0 };
}

export async function exportCloudServices(
  client: CloudforetClient,
): Promise<{ rows: number; bytes: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-inventory-'));
  try {
    const summary = await runInventoryExport(
      {
        client,
        sink: dirSink(dir),
        credential: { domainId: 'domain', workspaceId: '*' },
        sources: cloudServices,
      },
      { snapshotDate: '2026-01-01' },
    );
    if (summary.failed > 0) throw new Error(`inventory export failed: ${JSON.stringify(summary.tables)}`);
    return { rows: summary.rows, bytes: summary.bytes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
