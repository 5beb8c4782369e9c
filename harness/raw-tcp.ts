// Loopback TCP servers that are not HTTP APIs: one that never answers, one that answers plain
// HTTP to anything (what a TLS client meets on an http:// port), and a port nobody listens on.
import { createServer, type Server, type Socket } from 'node:net';

export interface RawServer {
  readonly url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

async function start(onConnection: (socket: Socket) => void, scheme: string): Promise<RawServer> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Accepts connections and reads requests, but never answers. */
export const startSilentServer = () => start((socket) => socket.resume(), 'http');

/** A plain HTTP server addressed as https://: its first bytes are not a TLS handshake. */
export const startPlainServerAsHttps = () =>
  start((socket) => {
    socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n'));
  }, 'https');

/** A loopback port that was free a moment ago: connecting to it is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = await start(() => {}, 'http');
  await server.close();
  return server.url;
}
