import { ConfigError, InputFailedError, NotConnectedError, errorMessage } from '../errors.js';
import { END_OF_INPUT } from '../message/transaction.js';
import type { Logger } from '../observability/logger.js';
import type { InputProbe } from '../observability/probes.js';
import type { Input } from '../plugin/types.js';
import { Connection } from './connection.js';
import type { DeliveryLedger } from './delivery-ledger.js';
import type { ComponentStatus } from './status.js';
import { FLUSH, type Source, type SourceRead } from './source.js';

/**
 * The one place a plugin `Input` becomes a runtime `Source`. Owns the input's connection:
 * connects before the first read, and when the input throws NotConnectedError (or fails to
 * connect) reconnects with exponential back-off. Any other read error is logged and retried
 * after a back-off; nothing the input gave is dropped. A config the input refuses when it
 * connects (a ConfigError: a field it does not implement) is not a connection error: it is not
 * retried, and the stream ends with it as an InputFailedError (`engine` exits 1 with its text). Counts what is read (metrics, tracing,
 * the stream's delivery ledger). A runtime component's source (the input broker) is managed
 * the same way, so that it is counted and watched like any input; its flush hints pass up.
 * An InputFailedError is passed on: the stream ends with it.
 */
export class ManagedInput implements Source {
  private readonly connection: Connection;

  constructor(
    private readonly inner: Input | Source,
    log: Logger,
    status: ComponentStatus,
    /** Counts, times and traces what is read (absent when metrics and tracing are off). */
    private readonly probe?: InputProbe,
    /** Where the stream counts what is read and not yet settled (for a drain that loses nothing). */
    private readonly ledger?: DeliveryLedger,
    /**
     * The inner part is a runtime source (the input broker) that drains itself after close():
     * its children still serve their replays, so reads go on until it says it has ended.
     */
    private readonly drainsItself = false,
  ) {
    this.connection = new Connection(
      () => inner.connect?.(),
      'Input',
      log,
      status,
      probe,
      (err) => err instanceof ConfigError,
    );
  }

  connect(): Promise<void> {
    return this.connection.ensure();
  }

  async read(): Promise<SourceRead> {
    const conn = this.connection;
    for (;;) {
      if (!conn.connected) {
        await conn.ensure().catch((err: unknown) => {
          throw new InputFailedError(errorMessage(err), { cause: err });
        });
        if (!conn.connected && !(conn.closed && this.drainsItself)) return END_OF_INPUT;
      }
      try {
        const tx = await this.inner.read();
        conn.working();
        if (tx === END_OF_INPUT || tx === FLUSH) return tx;
        const owed = this.ledger ? this.ledger.track(tx) : tx;
        return this.probe === undefined ? owed : this.probe.read(owed);
      } catch (err) {
        if (conn.closed && !(err instanceof InputFailedError)) return END_OF_INPUT;
        if (err instanceof InputFailedError) {
          this.probe?.failed();
          throw err;
        }
        if (err instanceof NotConnectedError) {
          conn.lost(err);
        } else {
          this.probe?.failed();
          await conn.retryAfterFailure('Failed to read message', err);
        }
      }
    }
  }

  async close(): Promise<void> {
    this.connection.close();
    this.probe?.closed();
    await this.inner.close?.();
  }
}
