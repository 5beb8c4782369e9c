// The page source of the bench, in its own process: the simulator plus a recording front.
// The simulator writes every row's JSON on every request (~45k rows/s on one core here), which
// would make the bench measure it instead of the exporter; so the front forwards each request
// once, keeps the answer on disk, and replays the same bytes afterwards. Latency is the server's
// time to answer: each answer leaves latencyMs after its request came, the front's own reading
// of the request and of the recorded file (~4 ms a cost page here) inside it, not added to it.
// argv[2]: JSON SimulatorOptions. IPC out: SourceReady, then {latencyMs, recorded} acks.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { type SimulatorOptions, startSimulator } from '../../harness/simulator/index.ts';

export interface SourceReady {
  /** The recording front; what the exporter talks to. */
  readonly url: string;
  readonly token: string;
  readonly dataSourceIds: string[];
}

interface Recorded {
  readonly status: number;
  readonly file: string;
}

const options = JSON.parse(process.argv[2] ?? '{}') as SimulatorOptions;
const simulator = await startSimulator(options);
const dir = mkdtempSync(join(tmpdir(), 'bench-pages-'));
const upstream = new Agent({ connections: 16 });
const recorded = new Map<string, Recorded>();
let latencyMs = 0;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function record(key: string, req: IncomingMessage, body: Buffer): Promise<Recorded> {
  const answer = await request(`${simulator.url}${req.url ?? '/'}`, {
    method: 'POST',
    dispatcher: upstream,
    headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' },
    body,
  });
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  const file = join(dir, key);
  await writeFile(file, bytes);
  const entry = { status: answer.statusCode, file };
  if (answer.statusCode === 200) recorded.set(key, entry);
  return entry;
}

const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
  const came = performance.now();
  void (async () => {
    const body = await readBody(req);
    const key = createHash('sha1').update(`${req.url}\n`).update(body).digest('hex');
    const entry = recorded.get(key) ?? (await record(key, req, body));
    const bytes = await readFile(entry.file);
    const left = latencyMs - (performance.now() - came);
    if (left > 0) await sleep(left);
    res.writeHead(entry.status, { 'content-type': 'application/json', 'content-length': bytes.length });
    res.end(bytes);
  })().catch((error: unknown) => {
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ detail: { code: 'ERROR_BENCH_FRONT', message: String(error) } }));
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

const ready: SourceReady = {
  url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  token: simulator.issueToken(),
  dataSourceIds: simulator.dataSourceIds(),
};
process.on('message', (message) => {
  const { latencyMs: ms } = message as { latencyMs?: number };
  if (typeof ms === 'number') latencyMs = ms;
  process.send?.({ latencyMs, recorded: recorded.size });
});
const stop = () => {
  server.closeAllConnections();
  rmSync(dir, { recursive: true, force: true });
  void simulator.close().then(() => process.exit(0));
};
process.on('disconnect', stop);
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
process.send?.(ready);
