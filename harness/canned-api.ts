// A loopback server that answers every request the same way: a console web page where the API
// should be, or a gateway that refuses the app. For answers the simulator cannot give.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CannedAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export interface CannedApi {
  readonly url: string;
  /** Paths asked, in order. */
  readonly paths: string[];
  close(): Promise<void>;
}

export const consoleWebPage: CannedAnswer = {
  status: 200,
  contentType: 'text/html',
  body: '<!DOCTYPE html><html><head><title>Cloudforet</title></head><body><div id="app"></div></body></html>\n',
};

export const permissionDenied: CannedAnswer = {
  status: 403,
  contentType: 'application/json',
  body: JSON.stringify({ detail: { code: 'ERROR_PERMISSION_DENIED', message: ' Permission denied.' } }),
};

export async function startCannedApi(answer: CannedAnswer): Promise<CannedApi> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '/');
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, {
        'content-type': answer.contentType,
        'content-length': Buffer.byteLength(answer.body),
      });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The web framework's own answer for a path it has no route for (a wrong base path). */
export const routeNotFound: CannedAnswer = {
  status: 404,
  contentType: 'application/json',
  body: JSON.stringify({ detail: 'Not Found' }),
};
