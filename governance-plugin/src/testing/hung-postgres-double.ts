/**
 * A double of a PostgreSQL server that hangs without closing (a paused process, a stuck host):
 * a TCP proxy on loopback that forwards to the real PostgreSQL until `hang()`, and from then on
 * accepts connections and never answers, on new connections and on those already open. Nothing
 * is closed until `close()`.
 */
import { createServer, connect, type Socket } from 'node:net';

export interface HungPostgres {
  /** `postgres://…` of the real server with this proxy's host and port. */
  url: string;
  /** From now on nothing is answered. */
  hang(): void;
  close(): Promise<void>;
}

export async function hungPostgresDouble(realUrl: string): Promise<HungPostgres> {
  const real = new URL(realUrl);
  const sockets = new Set<Socket>();
  let hung = false;
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const server = createServer((client) => {
    track(client);
    if (hung) return; // accepted, never answered
    const upstream = connect(Number(real.port || 5432), real.hostname);
    track(upstream);
    // Each way, bytes pass only until the hang; after it they are read and dropped, so neither side sees an answer or an end.
    client.on('data', (d) => hung || upstream.write(d));
    upstream.on('data', (d) => hung || client.write(d));
    client.on('end', () => hung || upstream.end());
    upstream.on('end', () => hung || client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  const url = new URL(realUrl);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.href,
    hang: () => void (hung = true),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
