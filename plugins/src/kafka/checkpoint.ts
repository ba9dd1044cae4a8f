/**
 * Which offsets of one partition may be committed: the transactions handed out, in offset
 * order, and which of them were acked. The commit point is the end of the longest acked prefix,
 * so an offset is never committed while an earlier message is still in flight (at least once),
 * however the acks arrive.
 */

/** The messages of one partition that one transaction carries: offsets up to `last`. */
export interface CheckpointRange {
  /** The offset of its last message. */
  readonly last: number;
  /** How many messages it carries (offsets may have gaps: compaction, transaction markers). */
  readonly count: number;
  acked: boolean;
}

export class Checkpoint {
  private pending: CheckpointRange[] = [];
  private head = 0;
  /** Messages handed out and not yet acked. */
  inFlight = 0;
  /** The offset to commit: every message below it was acked. -1 until one was. */
  committable = -1;

  constructor(
    /** `checkpoint_limit`: a new transaction starts only while fewer messages are in flight. */
    readonly limit: number,
  ) {}

  /** True when another transaction may be handed out (1 = lock-step: only when none is in flight). */
  get open(): boolean {
    return this.inFlight < this.limit;
  }

  /** How many more messages may join the in-flight set (0 when closed). */
  get room(): number {
    return Math.max(0, this.limit - this.inFlight);
  }

  /** Records a transaction handed out; its offsets must follow every one tracked before. */
  track(last: number, count: number): CheckpointRange {
    const r: CheckpointRange = { last, count, acked: false };
    this.pending.push(r);
    this.inFlight += count;
    return r;
  }

  /** Marks a range acked; true when the commit point moved. A second ack of it changes nothing. */
  ack(r: CheckpointRange): boolean {
    if (r.acked) return false;
    r.acked = true;
    this.inFlight -= r.count;
    const pending = this.pending;
    let moved = false;
    while (this.head < pending.length && pending[this.head]!.acked) {
      this.committable = pending[this.head]!.last + 1;
      this.head++;
      moved = true;
    }
    if (this.head === pending.length) {
      this.pending = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > pending.length) {
      this.pending = pending.slice(this.head);
      this.head = 0;
    }
    return moved;
  }
}
