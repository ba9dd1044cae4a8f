/**
 * Whether the `logbus` input is stuck: a partition is stalled when the broker holds records after
 * the offset this input reads from, none of what it fetched waits to be read (so it is not the
 * pipeline holding it back: that is back-pressure), and no record arrived between two looks in a
 * row. kafkajs retries a fetch that brings nothing for ever without a word (a record batch it
 * cannot decode, a partition left paused); this makes it visible, as the `logbus_stalled` gauge
 * and as the reason `/ready` gives.
 */
import { metricsFor, type ComponentContext, type Gauge, type Labelled } from '@svc/engine';
import type { PartitionFeed } from './consumer-partition.js';

/** Consecutive looks without progress after which a partition counts as stalled. */
const LOOKS = 2;

interface Seen {
  fetched: number;
  still: number;
}

export class StallWatch {
  private readonly gauge: Labelled<Gauge>;
  private readonly seen = new WeakMap<PartitionFeed, Seen>();
  private stalled: string[] = [];
  /** How many looks were taken. */
  looks = 0;

  constructor(ctx: ComponentContext) {
    this.gauge = metricsFor(ctx).gauge('logbus_stalled', {
      help: '1 while the partition has records to read and its fetches delivered none across two looks in a row, else 0.',
      labels: ['topic', 'partition'],
    });
  }

  /**
   * One look at the assigned partitions: `ends` are the brokers' end offsets by partition key,
   * `from` where a partition that fetched nothing yet starts (its committed offset, or where
   * `start_from_oldest` puts it).
   */
  look(feeds: readonly PartitionFeed[], ends: ReadonlyMap<string, number>, from: (f: PartitionFeed) => number | undefined): void {
    const stalled: string[] = [];
    for (const f of feeds) {
      const end = ends.get(f.key);
      const at = f.nextOffset >= 0 ? f.nextOffset : from(f);
      let s = this.seen.get(f);
      if (s === undefined) this.seen.set(f, (s = { fetched: f.fetched, still: 0 }));
      const waiting = end !== undefined && at !== undefined && end > at && f.buffered === 0;
      s.still = waiting && f.fetched === s.fetched ? s.still + 1 : 0;
      s.fetched = f.fetched;
      const stuck = s.still >= LOOKS;
      this.gauge.labels(f.topic, String(f.partition)).set(stuck ? 1 : 0);
      if (stuck) stalled.push(`partition ${f.topic}/${f.partition} has ${end! - at!} records to read from offset ${at} and its fetches delivered none`);
    }
    this.stalled = stalled;
    this.looks++;
  }

  /** Why the input is stuck, or undefined while every partition moves (or has nothing to read). */
  reason(): string | undefined {
    return this.stalled.length === 0 ? undefined : this.stalled.join('; ');
  }

  /** Nothing is assigned (closed, or between connections): nothing is stalled. */
  clear(feeds: Iterable<PartitionFeed>): void {
    for (const f of feeds) this.gauge.labels(f.topic, String(f.partition)).set(0);
    this.stalled = [];
  }
}
