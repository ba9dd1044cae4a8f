/**
 * The shutdown drain tests' output target (the `*.test.ts` files only): a real HTTP upstream on
 * loopback that an `http_client` output posts each message to, which fails for a while (or for
 * good) and records which bodies it answered 2xx, i.e. which messages were really delivered.
 */
import { upstream, type Upstream } from './upstream.js';
import type { EngineProcess } from './engine-process.js';

export interface FlakyUpstream {
  up: Upstream;
  /** The bodies answered 200: what the output delivered. */
  delivered: Set<string>;
  /** Settles at the first request (the engine read something and tried to write it). */
  firstRequest: Promise<void>;
}

/**
 * An upstream that answers 500 until `failMs` after its first request (Infinity: for good), then
 * 200; each answer `answerAfterMs` after the request came (a slow upstream: writes in flight).
 */
export async function flakyUpstream(failMs: number, answerAfterMs = 0): Promise<FlakyUpstream> {
  const delivered = new Set<string>();
  let first = 0;
  let seenFirst!: () => void;
  const firstRequest = new Promise<void>((r) => (seenFirst = r));
  const up = await upstream((_req, body, res) => {
    if (first === 0) {
      first = Date.now();
      seenFirst();
    }
    const ok = Date.now() - first >= failMs;
    const answer = () => {
      // A client that went away never learnt of the answer: not delivered.
      if (res.destroyed || res.socket?.destroyed) return;
      if (!ok) return void res.writeHead(500).end('not yet');
      delivered.add(body.toString());
      res.writeHead(200).end('ok');
    };
    if (answerAfterMs > 0) setTimeout(answer, answerAfterMs);
    else answer();
  });
  return { up, delivered, firstRequest };
}

/** An `http_client` output posting each message to `url`, retrying once before it nacks. */
export function httpClientOutput(url: string): string {
  return `output:
  http_client:
    url: ${url}/out
    verb: POST
    retries: 1
    retry_period: 100ms
`;
}

/**
 * Waits for the upstream's first request (failing if the engine exits first or nothing comes
 * within 30 s), then `afterMs`, then sends SIGINT; resolves with the exit code. The engine is
 * killed if it is still running and the upstream is closed, either way.
 */
export async function interruptAfterFirstRequest(engine: EngineProcess, up: FlakyUpstream, afterMs: number): Promise<number | null> {
  try {
    let timer: NodeJS.Timeout | undefined;
    const first = await Promise.race([
      up.firstRequest.then(() => 'request' as const),
      engine.exited.then(() => 'exited' as const),
      new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), 30_000))),
    ]);
    clearTimeout(timer);
    if (first !== 'request') throw new Error(`no request reached the upstream (${first})\n${engine.output()}`);
    await new Promise((r) => setTimeout(r, afterMs));
    return await engine.stop(30_000);
  } finally {
    // Whatever happened, no engine or upstream outlives the run (what was delivered stays counted).
    if (!engine.done) await engine.kill();
    await up.up.close();
  }
}

/** The count in the engine's `Could not deliver N message(s)` line, or undefined without one. */
export function reportedUndelivered(log: string): number | undefined {
  const m = /Could not deliver (\d+) message\(s\)/.exec(log);
  return m ? Number(m[1]) : undefined;
}

/** Polls `probe` every 100 ms until it is true; fails after `ms`, or as soon as `engine` exits. */
export async function until(what: string, probe: () => boolean | Promise<boolean>, ms: number, engine?: EngineProcess): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await probe()) return;
    if (engine?.done) throw new Error(`the engine exited while waiting for ${what}\n${engine.output()}`);
    if (Date.now() >= deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}${engine ? `\n${engine.output()}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
