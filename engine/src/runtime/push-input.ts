/**
 * The base of an input that is pushed to instead of pulling: a server whose requests become
 * transactions (`http_server`, the gateway's `api_gateway`), an agent that lists APIs when its
 * hub asks (`governance_sync`). What it holds for all of them:
 *
 * - a queue from the pushes to `read()`: a transaction waits there until the stream reads it,
 *   and a push waits for room once `maxQueued` are waiting (back-pressure on the producer);
 * - listening: the HTTP listeners it starts with {@link PushInput.startListener} are stopped with it;
 * - closing: `close()` ends a waiting `read()` with `END_OF_INPUT`, gives every queued, unread
 *   transaction back through its `dropped` (a server answers it 503; it never enters the stream)
 *   and stops the listeners, which answer what is in flight as its transactions are acked (the
 *   stream drains meanwhile, so `close()` does not wait); `closed()` resolves once they are done.
 *
 * An input keeps only what is its own: what a push is, and what closing means besides.
 */
import { HttpListener, type HttpListenerOptions } from '../http/listener.js';
import type { Batch } from '../message/message.js';
import { ResultStore, type Answer } from '../message/result-store.js';
import { END_OF_INPUT, type EndOfInput, type Transaction } from '../message/transaction.js';
import type { Input } from '../plugin/types.js';

/** A transaction pushed to the input, queued until the stream reads it. */
export interface Pushed {
  tx: Transaction;
  /** Called when the stream takes it. */
  picked?: () => void;
  /** Called when the input closes before the stream took it (it never enters the stream). */
  dropped?: () => void;
}

/** How a request pushed with {@link PushInput.pushRequest} is settled: once, by the first of these. */
export interface RequestSettlement {
  /** Its transaction was acked (`err`: nacked); `results()` are the answers stored for its messages. */
  acked(err: Error | undefined, results: () => Answer[]): void;
  /** The input closed before the stream took it. */
  dropped(): void;
}

/** A request in the stream, until it is settled. */
export interface PendingRequest {
  /** Settles it here (its time ran out): true unless it was settled already; taken out of the queue if unread. */
  expire(): boolean;
}

export abstract class PushInput implements Input {
  private readonly queue: Pushed[] = [];
  private reader: ((r: Transaction | EndOfInput) => void) | undefined;
  /** Pushes waiting for room in a full queue. */
  private readonly room: Array<() => void> = [];
  private readonly listeners: HttpListener[] = [];
  private isClosing = false;
  private stopped: Promise<void> | undefined;

  /** `maxQueued`: unread transactions beyond which a push waits (unbounded by default: a server bounds its requests by time). */
  constructor(private readonly maxQueued = Infinity) {}

  abstract connect(): Promise<void>;

  /** True once `close()` was called: new pushes are refused by the input's own rule (a 503, a skipped sync). */
  protected get closing(): boolean {
    return this.isClosing;
  }

  read(): Promise<Transaction | EndOfInput> | Transaction | EndOfInput {
    const p = this.queue.shift();
    if (p) {
      this.room.shift()?.();
      p.picked?.();
      return p.tx;
    }
    if (this.isClosing) return END_OF_INPUT;
    return new Promise((resolve) => (this.reader = resolve));
  }

  /**
   * Hands `p` to a waiting `read()`, else queues it. Resolves at once, or once there is room again
   * when the queue is full (or the input closes).
   */
  protected push(p: Pushed): Promise<void> {
    const r = this.reader;
    if (r) {
      this.reader = undefined;
      p.picked?.();
      r(p.tx);
      return DONE;
    }
    this.queue.push(p);
    if (this.queue.length < this.maxQueued) return DONE;
    return new Promise((resolve) => this.room.push(resolve));
  }

  /**
   * Pushes a request's `batch` as one transaction that is settled once: by its ack, by its drop
   * when the input closes first, or by `expire()` on the handle. Its result store is opened
   * before the stream sees the batch, so an answer stored on any copy of a message reaches it.
   */
  protected pushRequest(batch: Batch, on: RequestSettlement): PendingRequest {
    let settled = false;
    const store = new ResultStore<Answer>(batch);
    const results = (): Answer[] => store.results();
    const pushed: Pushed = {
      tx: {
        batch,
        ack: (err?: Error) => {
          if (settled) return;
          settled = true;
          on.acked(err, results);
        },
      },
      dropped: () => {
        if (settled) return;
        settled = true;
        on.dropped();
      },
    };
    void this.push(pushed);
    return {
      expire: () => {
        if (settled) return false;
        settled = true;
        // Not yet read: it never enters the stream. Read: it may still be delivered.
        this.unqueue(pushed);
        return true;
      },
    };
  }

  /** Takes `p` back out of the queue if the stream has not read it yet. */
  private unqueue(p: Pushed): void {
    const i = this.queue.indexOf(p);
    if (i >= 0) this.queue.splice(i, 1);
  }

  /** Starts an HTTP listener that closes with this input; resolves once it listens. */
  protected async startListener(options: HttpListenerOptions): Promise<HttpListener> {
    const listener = new HttpListener(options);
    await listener.start();
    this.listeners.push(listener);
    return listener;
  }

  async close(): Promise<void> {
    if (this.isClosing) return;
    this.isClosing = true;
    const r = this.reader;
    this.reader = undefined;
    r?.(END_OF_INPUT);
    for (const p of this.queue.splice(0)) p.dropped?.();
    for (const wake of this.room.splice(0)) wake();
    this.onClose();
    this.stopped = Promise.all(this.listeners.map((l) => l.close())).then(() => this.onDrained());
  }

  /** What else closing means to the input, once the queue is emptied and before the listeners stop. */
  protected onClose(): void {}

  /** What the input releases once its listeners closed every connection (state requests in flight still read). */
  protected onDrained(): Promise<void> | void {}

  /** Resolves once the listeners closed every connection and the input released what it held (tests, shutdown). */
  async closed(): Promise<void> {
    await this.stopped;
  }
}

const DONE = Promise.resolve();
