/** How long a Redis component waits for its first connection before starting anyway. */
const FIRST_CONNECT_MS = 2_000;

/**
 * Connects, waiting a bounded time: until connected, until the client reports its first failure
 * (the caller calls `settle` from its error handler), or FIRST_CONNECT_MS. Redis being down at
 * start-up is an outage (handled by the component's own policy, with `failed` told why), not a
 * start-up error.
 */
export class FirstConnect {
  private resolve: (() => void) | undefined;

  /** Ends the wait (a no-op once it ended). */
  settle(): void {
    this.resolve?.();
    this.resolve = undefined;
  }

  async run(connect: () => Promise<unknown>, failed: (err: unknown) => void): Promise<void> {
    const waited = new Promise<void>((resolve) => {
      this.resolve = resolve;
      setTimeout(resolve, FIRST_CONNECT_MS).unref();
    });
    connect().then(
      () => this.settle(),
      (err: unknown) => failed(err),
    );
    await waited;
    this.resolve = undefined;
  }
}
