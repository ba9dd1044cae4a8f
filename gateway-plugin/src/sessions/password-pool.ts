/**
 * bcrypt comparisons off the event loop: bcryptjs is pure JavaScript and one comparison at Tyk's
 * cost 10 takes tens of milliseconds of CPU, which on the main thread stalls every other API of
 * the gateway (8 clients sending wrong passwords took a keyless API from 0.03 s to 1.5 s). A small
 * piscina pool, started on the first check and idle threads stopped, runs them: at most half the
 * cores (one at least) at once, and at most {@link MAX_WAITING} waiting; a check beyond that is
 * refused (a failed check: fail closed) rather than queued without bound.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';

/** Checks that may wait for a thread of the pool. */
export const MAX_WAITING = 64;

let pool: Piscina | undefined;

function poolOf(): Piscina {
  return (pool ??= new Piscina({
    filename: new URL('./password-worker.js', import.meta.url).href,
    minThreads: 0,
    maxThreads: Math.max(1, Math.floor(availableParallelism() / 2)),
    maxQueue: MAX_WAITING,
    idleTimeout: 10_000,
    atomics: 'disabled',
  }));
}

/** True when `password` matches the bcrypt `hash`; false when it does not, or when the pool is full. */
export async function bcryptMatches(password: string, hash: string): Promise<boolean> {
  try {
    return (await poolOf().run({ password, hash })) === true;
  } catch (err) {
    // The queue is full: the check did not pass. Anything else (a broken pool) is an error.
    if (err instanceof Error && err.message === 'Task queue is at limit') return false;
    throw err;
  }
}
