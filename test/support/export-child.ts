// A cost export (or one object write) in a process of its own, so a test can give it limits the
// test runner must not have (e.g. `ulimit -f`). Input: EXPORT_CHILD_ARGS = JSON, either
// {endpoint, token, dir, from, to} for a run, or {dir, key, bytes} for one object of `bytes` bytes
// written in a single chunk. Output: one JSON line on stdout (the summary, or {code, message}).
import { Agent } from 'undici';
import { CloudforetClient } from '../../functions/lib/cloudforet/client.ts';
import { runCostExport } from '../../functions/lib/costs/run.ts';
import { errorCode, errorMessage } from '../../functions/lib/errors.ts';
import { dirSink } from '../../functions/lib/storage/dir-sink.ts';

const args = JSON.parse(process.env.EXPORT_CHILD_ARGS ?? '{}') as {
  endpoint: string;
  token: string;
  dir: string;
  from: string;
  to: string;
  key?: string;
  bytes?: number;
};

async function writeOneObject(key: string, bytes: number): Promise<unknown> {
  const upload = dirSink(args.dir).begin(key, 'application/octet-stream');
  try {
    await upload.write(new Uint8Array(bytes).fill(1));
    await upload.commit();
    return { code: 'NONE', message: 'committed' };
  } catch (error) {
    await upload.abort();
    return { code: errorCode(error), message: errorMessage(error) };
  }
}

async function exportCosts(): Promise<unknown> {
  const dispatcher = new Agent();
  const client = new CloudforetClient({
    endpoint: args.endpoint,
    token: args.token,
    dispatcher,
    sleep: async () => {},
  });
  try {
    return await runCostExport(
      { client, sink: dirSink(args.dir), concurrency: 1 },
      { from: args.from, to: args.to, force: true },
    );
  } finally {
    await dispatcher.close();
  }
}

const result = args.key ? await writeOneObject(args.key, args.bytes ?? 0) : await exportCosts();
process.stdout.write(`${JSON.stringify(result)}\n`);
