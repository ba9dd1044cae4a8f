/**
 * The base of an input that pulls from a broker or a queue (`redis_list`, `redis_streams`,
 * `redis_pubsub`, `nats`, `nats_jetstream`, `aws_sqs`): what each of them would otherwise write
 * around its own fetching. What it holds for all of them:
 *
 * - the queue between fetching and `read()`: a fetcher running beside the stream (a
 *   subscription's callback, a consume loop, receive loops) {@link PullInput.offer}s what it got
 *   and waits on {@link PullInput.room} while the input says it holds enough; an input that fetches
 *   inside `read()` overrides {@link PullInput.fetch} instead;
 * - reading: `read()` answers `END_OF_INPUT` once closing, else hands out what waits (up to
 *   `perTransaction` items) as one transaction, else fetches (by default: waits for an offer);
 * - acks: {@link PullInput.track} makes a transaction whose ack counts once, and counts the
 *   transactions handed out and not yet acked ({@link PullInput.outstanding}), so a fetcher can
 *   bound them and closing can wait for them ({@link PullInput.acksSettled});
 * - closing: `close()` ends a waiting `read()` with `END_OF_INPUT`, wakes the fetchers waiting for
 *   room, then runs the input's {@link PullInput.shutDown} once (a second `close()` waits for it too).
 *
 * An input keeps only what is its own: connecting, what a transaction is and what its ack tells
 * the source, and what closing hands back.
 */
import type { Batch } from '../message/message.js';
import { END_OF_INPUT, type EndOfInput, type Transaction } from '../message/transaction.js';
import type { Input } from '../plugin/types.js';
import { trackAck } from './track-ack.js';

export abstract class PullInput<T> implements Input {
  private waiting: T[] = [];
  private readerWake: (() => void) | undefined;
  private readonly fetcherWakes: Array<() => void> = [];
  private readonly ackWakes: Array<() => void> = [];
  private handedOut = 0;
  private isClosed = false;
  private shuttingDown: Promise<void> | undefined;

  /** `perTransaction`: the most waiting items one transaction takes (1: each its own; Infinity: all that wait). */
  constructor(private readonly perTransaction = 1) {}

  /** True once `close()` was called: fetchers stop, `read()` answers `END_OF_INPUT`. */
  protected get closed(): boolean {
    return this.isClosed;
  }

  /** How many items wait to be read. */
  protected get queued(): number {
    return this.waiting.length;
  }

  /** How many transactions made by {@link PullInput.track} are out and not yet acked. */
  protected get outstanding(): number {
    return this.handedOut;
  }

  async read(): Promise<Transaction | EndOfInput> {
    for (;;) {
      if (this.isClosed) return END_OF_INPUT;
      this.assertConnected();
      if (this.waiting.length > 0) {
        let items: T[];
        if (this.waiting.length <= this.perTransaction) {
          items = this.waiting;
          this.waiting = [];
        } else if (this.perTransaction === 1) {
          items = [this.waiting.shift()!];
        } else {
          items = this.waiting.splice(0, this.perTransaction);
        }
        this.wakeFetchers();
        return this.transaction(items);
      }
      await this.fetch();
    }
  }

  /** Throws (a `NotConnectedError`) when nothing may be handed out now; `read()` asks before taking what waits. */
  protected assertConnected(): void {}

  /**
   * Brings more items into the queue, or returns when `read()` should look again (closing, a lost
   * connection to report). By default it waits for an offer, {@link PullInput.wakeReader} or `close()`;
   * an input that fetches inside `read()` overrides it.
   */
  protected fetch(): Promise<void> {
    return new Promise((resolve) => (this.readerWake = resolve));
  }

  /** The transaction of `items`, taken from the queue in the order they were offered. */
  protected abstract transaction(items: T[]): Transaction;

  /** Queues what a fetcher got (a few at a time: the items are spread into a call) and wakes a waiting `read()`. */
  protected offer(...items: T[]): void {
    this.waiting.push(...items);
    this.wakeReader();
  }

  /** Takes every waiting item out of the queue (closing hands them back; a lost session drops them). */
  protected takeQueued(): T[] {
    const all = this.waiting;
    this.waiting = [];
    return all;
  }

  /** Wakes a `read()` waiting in the default {@link PullInput.fetch} (it looks again: closing, a lost connection). */
  protected wakeReader(): void {
    const wake = this.readerWake;
    this.readerWake = undefined;
    wake?.();
  }

  /**
   * Resolves once a fetcher may look for room again: `read()` took items, a transaction was acked,
   * the input closes, or {@link PullInput.wakeFetchers} was called. The fetcher checks its own bound again.
   */
  protected room(): Promise<void> {
    return new Promise((resolve) => this.fetcherWakes.push(resolve));
  }

  /** Wakes every fetcher waiting on {@link PullInput.room}. */
  protected wakeFetchers(): void {
    if (this.fetcherWakes.length === 0) return;
    for (const wake of this.fetcherWakes.splice(0)) wake();
  }

  /**
   * A transaction of `batch` counted as outstanding until acked; its ack counts once (a second
   * one is ignored) and calls `settle`, which does what an ack (or, with an error, a nack) means
   * to the source.
   */
  protected track(batch: Batch, settle: (err?: Error) => void): Transaction {
    this.handedOut++;
    return {
      batch,
      ack: trackAck((err) => {
        this.handedOut--;
        settle(err);
        this.wakeFetchers();
        if (this.handedOut === 0) this.stopAwaitingAcks();
      }),
    };
  }

  /** Resolves once no tracked transaction is outstanding, after `withinMs` at the latest, or at {@link PullInput.stopAwaitingAcks}. */
  protected acksSettled(withinMs: number): Promise<void> {
    if (this.handedOut === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, withinMs);
      this.ackWakes.push(done);
    });
  }

  /** Ends every {@link PullInput.acksSettled} wait now (the acks can no longer reach the source). */
  protected stopAwaitingAcks(): void {
    for (const done of this.ackWakes.splice(0)) done();
  }

  close(): Promise<void> {
    return (this.shuttingDown ??= this.closeOnce());
  }

  private async closeOnce(): Promise<void> {
    this.isClosed = true;
    this.wakeReader();
    this.wakeFetchers();
    await this.shutDown();
  }

  /**
   * What closing means to the input besides, run once after `read()` and the fetchers were woken:
   * stop fetching, hand back what was fetched and not read, wait for acks, release the connection.
   */
  protected abstract shutDown(): Promise<void>;
}
