/**
 * A real HTTP upstream on loopback for tests: records every request (method, url, headers, body)
 * and answers with the test's handler; `close()` destroys open sockets so a test ends by itself.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Upstream {
  url: string;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }>;
  close(): Promise<void>;
  server: http.Server;
}

/** A real upstream on loopback: records each request and answers with `handler`. */
export async function upstream(handler: (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse, n: number) => void): Promise<Upstream> {
  const requests: Upstream['requests'] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, body, res, requests.length);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    server,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
