/** How long a Redis component waits for its first connection before starting anyway. */
export const FIRST_CONNECT_MS = 2_000;

/** The part of a Redis client connecting needs (both @redis/client shapes the components hold). */
interface Connectable {
  once(event: 'ready' | 'error', listener: (...args: unknown[]) => void): unknown;
  connect(): Promise<unknown>;
}

/**
 * Connects, waiting a bounded time: Redis being down at start-up is an outage (handled by the
 * component's own policy, with `failed` told why), not a start-up error.
 */
export async function connectBounded(client: Connectable, failed: (err: unknown) => void): Promise<void> {
  const ready = new Promise<void>((resolve) => {
    client.once('ready', () => resolve());
    client.once('error', () => resolve());
    setTimeout(resolve, FIRST_CONNECT_MS).unref();
  });
  client.connect().catch(failed);
  await ready;
}
