import * as net from 'node:net';

/**
 * Ports outside Linux's ephemeral range (32768–60999), where the real servers do not listen
 * either. A port from the ephemeral range can be taken, between the pick and the bind, as the
 * local end of any outgoing loopback connection of any process, which the kernel hands out
 * from that same range; a port from here can only be taken by another listener.
 */
const RANGES: ReadonlyArray<readonly [number, number]> = [
  [20000, 25000],
  [26000, 32000],
  [61000, 65000],
];
const SPAN = RANGES.reduce((n, [lo, hi]) => n + hi - lo, 0);
const handedOut = new Set<number>();

function randomPort(): number {
  let i = Math.floor(Math.random() * SPAN);
  for (const [lo, hi] of RANGES) {
    if (i < hi - lo) return lo + i;
    i -= hi - lo;
  }
  return RANGES[0]![0];
}

function bindable(port: number): Promise<boolean> {
  const s = net.createServer();
  return new Promise((resolve) => {
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A loopback port nothing listens on right now, not handed out before in this process. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = randomPort();
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free loopback port found outside the ephemeral range');
}
