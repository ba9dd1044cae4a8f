/**
 * A request's deadline, one per request for all its phases (reading the body, then waiting for
 * delivery): each phase says what expiry means for it.
 *
 * Deadlines of one length expire in the order they were made, so they wait in one FIFO list
 * per length behind one timer (armed for the oldest), instead of a timer each: a setTimeout and
 * a clearTimeout per request cost about as much as the rest of the input's own work on a small
 * request. The timer is unref'd: an open connection, not a deadline, keeps the process alive.
 */
export class Deadline {
  private onExpire: (() => void) | undefined;
  expired = false;
  /** When it expires, on performance.now()'s clock. */
  readonly at: number;
  /** Links of its queue (undefined once it left it). */
  prev: Deadline | undefined;
  next: Deadline | undefined;
  private readonly queue: DeadlineQueue;

  constructor(readonly ms: number) {
    this.at = performance.now() + ms;
    let q = QUEUES.get(ms);
    if (q === undefined) QUEUES.set(ms, (q = new DeadlineQueue(ms)));
    this.queue = q;
    q.add(this);
  }

  /** What to do when time runs out (replaces the previous phase's handler). */
  on(fn: (() => void) | undefined): void {
    this.onExpire = fn;
  }

  /** Stops it: it never expires. */
  clear(): void {
    this.onExpire = undefined;
    this.queue.remove(this);
  }

  /** Called by its queue. */
  expire(): void {
    this.expired = true;
    const fn = this.onExpire;
    this.onExpire = undefined;
    fn?.();
  }
}

/** The deadlines of one length, oldest first, behind one timer. */
class DeadlineQueue {
  private head: Deadline | undefined;
  private tail: Deadline | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  add(d: Deadline): void {
    d.prev = this.tail;
    if (this.tail) this.tail.next = d;
    else this.head = d;
    this.tail = d;
    // Armed while anything may be waiting; a cleared head leaves it armed until it fires once.
    if (this.timer === undefined) this.arm(this.ms);
  }

  remove(d: Deadline): void {
    if (d.prev === undefined && this.head !== d) return; // not queued (expired or cleared)
    if (d.prev) d.prev.next = d.next;
    else this.head = d.next;
    if (d.next) d.next.prev = d.prev;
    else this.tail = d.prev;
    d.prev = d.next = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(ms)));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    let d = this.head;
    while (d !== undefined && d.at <= now) {
      this.remove(d);
      d.expire();
      d = this.head;
    }
    if (this.head !== undefined && this.timer === undefined) this.arm(this.head.at - now);
  }
}

const QUEUES = new Map<number, DeadlineQueue>();
