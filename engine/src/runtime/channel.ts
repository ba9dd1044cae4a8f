import { END_OF_INPUT, type EndOfInput } from '../message/transaction.js';

/**
 * A bounded async queue between two stages. `push` waits while it is full (back-pressure);
 * `pop` waits while it is empty and returns END_OF_INPUT once it is closed and drained.
 */
export class Channel<T> {
  private readonly items: T[] = [];
  private head = 0;
  private readonly takers: Array<(v: T | EndOfInput) => void> = [];
  private readonly putters: Array<() => void> = [];
  private closed = false;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.items.length - this.head;
  }

  /** Adds an item; returns a promise to wait on only when the channel is full (or closed: it rejects). */
  push(item: T): Promise<void> | void {
    if (this.size >= this.capacity || this.closed) return this.pushLater(item);
    const taker = this.takers.shift();
    if (taker) taker(item);
    else this.items.push(item);
  }

  private async pushLater(item: T): Promise<void> {
    while (this.size >= this.capacity && !this.closed) {
      await new Promise<void>((r) => this.putters.push(r));
    }
    if (this.closed) throw new Error('channel closed');
    this.push(item); // not full now: added at once
  }

  pop(): Promise<T | EndOfInput> | T | EndOfInput {
    if (this.size > 0) {
      const item = this.items[this.head]!;
      this.items[this.head++] = undefined as T;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
      this.putters.shift()?.();
      return item;
    }
    if (this.closed) return END_OF_INPUT;
    return new Promise((r) => this.takers.push(r));
  }

  /** No more pushes; pending and future pops get END_OF_INPUT once the queue is drained. */
  close(): void {
    this.closed = true;
    for (const t of this.takers.splice(0)) t(END_OF_INPUT);
    for (const p of this.putters.splice(0)) p();
  }
}
