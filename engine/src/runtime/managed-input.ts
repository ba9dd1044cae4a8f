import { NotConnectedError, errorMessage } from '../errors.js';
import { END_OF_INPUT, type EndOfInput, type Transaction } from '../message/transaction.js';
import type { Logger } from '../observability/logger.js';
import type { InputProbe } from '../observability/probes.js';
import type { Input } from '../plugin/types.js';
import { Backoff, sleep } from './backoff.js';
import type { ComponentStatus } from './status.js';
import { FLUSH } from './flush-hint.js';

/**
 * Owns an input's connection: connects before the first read, and when the input throws
 * NotConnectedError (or fails to connect) reconnects with exponential back-off. Any other read
 * error is logged and retried after a back-off; nothing the input gave is dropped.
 */
export class ManagedInput implements Input {
  private connected = false;
  private readonly backoff = new Backoff(100, 30_000);
  private readonly closing = new AbortController();

  constructor(
    private readonly inner: Input,
    private readonly log: Logger,
    private readonly status: ComponentStatus,
    /** Counts, times and traces what is read (absent when metrics and tracing are off). */
    private readonly probe?: InputProbe,
  ) {}

  async connect(): Promise<void> {
    while (!this.connected && !this.closing.signal.aborted) {
      try {
        await this.inner.connect?.();
        this.connected = true;
        this.status.connected = true;
        this.status.reason = undefined;
        this.backoff.reset();
        this.probe?.retrying(0);
        this.log.info('Input is now active');
      } catch (err) {
        this.status.reason = errorMessage(err);
        const wait = this.backoff.next();
        this.probe?.retrying(this.backoff.attempts);
        this.log.error(`Failed to connect, retrying in ${wait}ms: ${errorMessage(err)}`);
        await sleep(wait, this.closing.signal);
      }
    }
  }

  async read(): Promise<Transaction | EndOfInput> {
    for (;;) {
      if (!this.connected) {
        await this.connect();
        if (!this.connected) return END_OF_INPUT;
      }
      try {
        const tx = await this.inner.read();
        if (this.probe === undefined || tx === END_OF_INPUT || (tx as unknown) === FLUSH) return tx;
        return this.probe.read(tx);
      } catch (err) {
        if (this.closing.signal.aborted) return END_OF_INPUT;
        if (err instanceof NotConnectedError) {
          this.connected = false;
          this.status.connected = false;
          this.status.reason = errorMessage(err);
          this.log.warn(`Lost connection, reconnecting: ${errorMessage(err)}`);
        } else {
          const wait = this.backoff.next();
          this.probe?.failed();
          this.probe?.retrying(this.backoff.attempts);
          this.log.error(`Failed to read message, retrying in ${wait}ms: ${errorMessage(err)}`);
          await sleep(wait, this.closing.signal);
        }
      }
    }
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.status.connected = false;
    this.status.reason = 'closed';
    this.probe?.closed();
    await this.inner.close?.();
  }
}
