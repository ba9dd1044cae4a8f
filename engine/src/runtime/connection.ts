import { errorMessage } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { Backoff, sleep } from './backoff.js';
import type { ComponentStatus } from './status.js';

/** What a connection reports as it goes (the input's or output's probe: retry gauge, Benthos' connection counters). */
export interface ConnectionWatcher {
  /** Consecutive failed attempts so far (0 once connected or working again). */
  retrying(attempts: number): void;
  /** A connection attempt failed (`*_connection_failed`). */
  connectionFailed(): void;
  /** A connection that was up was lost (`*_connection_lost`). */
  connectionLost(): void;
}

/**
 * A component's connection, as inputs and outputs share it: connects with exponential back-off
 * until it succeeds or is closed, one attempt loop at a time, keeping the component's status
 * (for `/ready`) and its retry gauge current. An error `giveUp` names (a refused config: no
 * retry can fix it) is not retried: `ensure()` rejects with it.
 */
export class Connection {
  connected = false;
  private connecting: Promise<void> | undefined;
  private readonly backoff = new Backoff(100, 30_000);
  /**
   * Back-off between reconnects after losses: a component that connects at once but keeps
   * reporting the connection lost (its peer is away) must not spin. Reset by `working()`.
   */
  private readonly lossBackoff = new Backoff(100, 5_000);
  private afterLoss = false;
  private readonly closing = new AbortController();

  constructor(
    private readonly connectOnce: () => Promise<void> | void,
    /** 'Input' or 'Output', for the log lines. */
    private readonly what: string,
    private readonly log: Logger,
    private readonly status: ComponentStatus,
    private readonly watcher?: ConnectionWatcher,
    private readonly giveUp: (err: unknown) => boolean = () => false,
  ) {}

  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  get signal(): AbortSignal {
    return this.closing.signal;
  }

  /** Resolves once connected, or once closed (then `connected` stays false); rejects with an error `giveUp` names. */
  ensure(): Promise<void> {
    if (this.connected) return Promise.resolve();
    return (this.connecting ??= this.loop().finally(() => (this.connecting = undefined)));
  }

  private async loop(): Promise<void> {
    if (this.afterLoss) {
      this.afterLoss = false;
      await sleep(this.lossBackoff.next(), this.closing.signal);
    }
    while (!this.connected && !this.closed) {
      try {
        await this.connectOnce();
        this.connected = true;
        this.status.connected = true;
        this.status.reason = undefined;
        this.backoff.reset();
        this.watcher?.retrying(0);
        this.log.info(`${this.what} is now active`);
      } catch (err) {
        this.status.reason = errorMessage(err);
        if (this.giveUp(err)) throw err;
        const wait = this.backoff.next();
        this.watcher?.connectionFailed();
        this.watcher?.retrying(this.backoff.attempts);
        this.log.error(`Failed to connect, retrying in ${wait}ms: ${errorMessage(err)}`);
        await sleep(wait, this.closing.signal);
      }
    }
  }

  /** The component said it lost its connection (NotConnectedError): reconnect on next use. */
  lost(err: unknown): void {
    if (this.connected) this.watcher?.connectionLost();
    this.connected = false;
    this.status.connected = false;
    this.status.reason = errorMessage(err);
    this.afterLoss = true;
    this.log.warn(`Lost connection, reconnecting: ${errorMessage(err)}`);
  }

  /** The component read or wrote again after a loss: the next loss waits the shortest step again. */
  working(): void {
    if (this.lossBackoff.attempts > 0) this.lossBackoff.reset();
  }

  /** Waits the next back-off step after a failure that is not a lost connection. */
  retryAfterFailure(what: string, err: unknown): Promise<boolean> {
    const wait = this.backoff.next();
    this.watcher?.retrying(this.backoff.attempts);
    this.log.error(`${what}, retrying in ${wait}ms: ${errorMessage(err)}`);
    return sleep(wait, this.closing.signal);
  }

  close(): void {
    this.closing.abort();
    this.connected = false;
    this.status.connected = false;
    this.status.reason = 'closed';
  }
}
