// Loopback servers whose answers are a matter of time and size: one that trickles its body a
// byte at a time and never finishes, one that sends more than a client should take.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StreamingApi {
  readonly url: string;
  /** Requests received so far. */
  readonly requests: number;
  close(): Promise<void>;
}

async function start(answer: (res: ServerResponse) => void): Promise<StreamingApi> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Headers at once, then one byte of a JSON object every `intervalMs`, forever. */
export const startTricklingApi = (intervalMs: number) =>
  start((res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{');
    const timer = setInterval(() => res.write(' '), intervalMs);
    res.on('close', () => clearInterval(timer));
  });

/**
 * A 200 of `bytes` bytes, in 64 KiB chunks as fast as the client reads them, with a
 * content-length header or chunked without one: spaces, then `{}` (JSON allows the spaces).
 * Infinity: spaces that never end.
 */
export const startLargeAnswerApi = (bytes: number, opts: { declareLength: boolean }) =>
  start((res) => {
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(opts.declareLength ? { 'content-length': String(bytes) } : {}),
    });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const spaces = bytes - 2;
    let sent = 0;
    const pump = () => {
      while (sent < spaces && !res.destroyed) {
        const part = spaces - sent < chunk.length ? chunk.subarray(0, spaces - sent) : chunk;
        sent += part.length;
        if (!res.write(part)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end('{}');
    };
    pump();
  });
