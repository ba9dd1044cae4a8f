import type { Batch, Message } from '@svc/engine';

/**
 * Puts the messages that blocks of processors returned back into the order of the batch that
 * went in (Benthos' switch does the same), for messages that kept their identity. A message the
 * processors created (a split, a copy) follows the message before it in its group; at the start
 * of a group it takes the place of the earliest known message of the group, or else of the
 * earliest message that went into the block; failing all that, it goes last.
 */
export class OriginalOrder {
  private readonly index = new Map<Message, number>();
  private readonly keys: number[] = [];
  private readonly out: Batch = [];
  private inOrder = true;

  constructor(batch: Batch) {
    for (let i = 0; i < batch.length; i++) this.index.set(batch[i]!, i);
  }

  /** Adds the messages of one group, in the order they came out; `from`: what went into the block. */
  add(group: Batch, from?: Batch): void {
    let key = this.earliest(group) ?? (from && this.earliest(from)) ?? Number.POSITIVE_INFINITY;
    for (const m of group) {
      const k = this.index.get(m);
      if (k !== undefined) key = k;
      if (this.keys.length > 0 && key < this.keys[this.keys.length - 1]!) this.inOrder = false;
      this.keys.push(key);
      this.out.push(m);
    }
  }

  /** Every message added, in the original order (a stable sort: ties keep the order they were added in). */
  result(): Batch {
    if (this.inOrder) return this.out;
    const keys = this.keys;
    const order = this.out.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
    return order.map((i) => this.out[i]!);
  }

  private earliest(g: Batch): number | undefined {
    let min: number | undefined;
    for (const m of g) {
      const k = this.index.get(m);
      if (k !== undefined && (min === undefined || k < min)) min = k;
    }
    return min;
  }
}
