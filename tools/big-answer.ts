// Peak memory of the client meeting a huge answer: a loopback server (a child process, so its
// memory is not counted) sends 300 MiB chunked, with no content-length, to the real client with
// its default answer limit; prints the outcome and this process's peak RSS.
// bash tools/with-node24.sh npx tsx tools/big-answer.ts [--mib 300] [--content-length] [--max-answer-mb N]
//   [--attempts N]
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CloudforetClient, createDispatcher } from '../functions/lib/cloudforet/client.ts';
import { errorCode, errorMessage } from '../functions/lib/errors.ts';

const MiB = 1024 * 1024;
const { values } = parseArgs({
  options: {
    mib: { type: 'string', default: '300' },
    'content-length': { type: 'boolean', default: false },
    'max-answer-mb': { type: 'string' },
    attempts: { type: 'string' },
    serve: { type: 'boolean' },
  },
});
const bytes = Number(values.mib) * MiB;

if (values.serve) serve(bytes, values['content-length'] === true);
else await measure();

/** Answers every request with `bytes` bytes (spaces, then {}), 64 KiB at a time as the client reads. */
function serve(size: number, declareLength: boolean): void {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(declareLength ? { 'content-length': String(size) } : {}),
    });
    let sent = 0;
    const pump = () => {
      while (sent < size - 2 && !res.destroyed) {
        const part = chunk.subarray(0, Math.min(chunk.length, size - 2 - sent));
        sent += part.length;
        if (!res.write(part)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end('{}');
    };
    pump();
  });
  server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
  process.on('disconnect', () => process.exit(0));
}

async function measure(): Promise<void> {
  const server = fork(fileURLToPath(import.meta.url), [...process.argv.slice(2), '--serve'], {
    execArgv: ['--import', 'tsx'],
  });
  const port = await new Promise<number>((resolve) => server.once('message', (m) => resolve(Number(m))));
  const dispatcher = createDispatcher();
  const limit = values['max-answer-mb'];
  const client = new CloudforetClient({
    endpoint: `http://127.0.0.1:${port}`,
    token: 'big-answer',
    dispatcher,
    ...(limit === undefined ? {} : { maxAnswerBytes: Number(limit) * MiB }),
    ...(values.attempts === undefined ? {} : { retry: { attempts: Number(values.attempts) } }),
  });
  const before = process.memoryUsage().rss;
  const started = Date.now();
  let outcome: string;
  try {
    const answer = await client.call('/cost-analysis/cost/list', {});
    outcome = `answered: ${JSON.stringify(answer)}`;
  } catch (error) {
    outcome = `failed: [${errorCode(error)}] ${errorMessage(error)}`;
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `a ${values.mib} MiB answer (${values['content-length'] ? 'content-length' : 'chunked'}), ` +
      `limit ${limit ?? 'default (64)'} MiB, ${client.retries + 1} attempt(s) in ${seconds.toFixed(1)} s`,
  );
  console.log(outcome);
  console.log(
    `RSS before ${(before / MiB).toFixed(0)} MiB; peak ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
  );
  await dispatcher.close();
  server.disconnect();
}
