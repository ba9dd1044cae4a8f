/**
 * One assigned partition as the `logbus` input sees it: the records fetched and not yet read
 * (bounded by `fetch_buffer_cap`: the fetch handler waits for room), what was handed out and
 * acked (the checkpoint), the batch being gathered, and its lag gauge.
 */
import type { Gauge } from '@svc/engine';
import type { KafkaMessage } from 'kafkajs';
import { Checkpoint, type CheckpointRange } from './checkpoint.js';
import { PartitionBatch } from './input-batching.js';

/** A fetched batch's records, read from `next` on. */
interface Chunk {
  readonly records: KafkaMessage[];
  next: number;
  /** The bytes of the values from `next` on. */
  bytes: number;
}

/**
 * What a partition may hold unread whatever `fetch_buffer_cap` says: two fetches' worth (kafkajs'
 * default `maxBytesPerPartition` is 1 MiB). kafkajs fetches again only once every handler of the
 * last fetch returned, so a buffer smaller than that leaves the reader idle during each round
 * trip: with 1 KB records, the default cap of 256 read 42-47 k msg/s where a cap of 2048 (about
 * 2 MB) read 64-73 k, in alternating runs.
 */
export const FETCH_BYTES = 2 << 20;

const size = (r: KafkaMessage): number => r.value?.length ?? 0;

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

export class PartitionFeed {
  readonly key: string;
  readonly checkpoint: Checkpoint;
  /** The batch being gathered (with `batching`). */
  readonly batch: PartitionBatch | undefined;
  /** The partition's end offset, as last fetched. */
  highWatermark = 0;
  /** The offset after the last record buffered (-1 before the first): the next fetch starts there. */
  nextOffset = -1;
  /** The partition was given up: nothing more is read from it. */
  revoked = false;
  /** When revoked: the commit point frozen once in-flight messages had their chance to be acked. */
  finalOffset: number | undefined;
  revokedAt = 0;
  /** Records fetched and not yet read. */
  buffered = 0;
  /** The bytes of their values. */
  bufferedBytes = 0;
  /** Records fetched since the partition was assigned (whether fetching moves). */
  fetched = 0;
  /** The offset of the last record moved into `batch`. */
  lastGathered = -1;
  private readonly chunks: Chunk[] = [];
  private spaceWaiter: (() => void) | undefined;
  private drainWaiters: Array<() => void> = [];

  constructor(
    readonly topic: string,
    readonly partition: number,
    checkpointLimit: number,
    batching: boolean,
    /** `logbus_lag` of this partition. */
    readonly lag: Gauge,
  ) {
    this.key = partitionKey(topic, partition);
    this.checkpoint = new Checkpoint(checkpointLimit);
    this.batch = batching ? new PartitionBatch() : undefined;
  }

  /** Buffers fetched records from index `from` on; `nextOffset` is the offset after the last one. */
  push(records: KafkaMessage[], from: number, nextOffset: number): void {
    if (from >= records.length) return;
    let bytes = 0;
    for (let i = from; i < records.length; i++) bytes += size(records[i]!);
    this.chunks.push({ records, next: from, bytes });
    this.bufferedBytes += bytes;
    this.buffered += records.length - from;
    this.fetched += records.length - from;
    this.nextOffset = nextOffset;
  }

  /** Takes up to `max` buffered records, oldest first (the fetched array itself when it fits whole). */
  take(max: number): KafkaMessage[] {
    const head = this.chunks[0];
    if (head === undefined || max <= 0) return [];
    if (head.next === 0 && head.records.length <= max) {
      this.chunks.shift();
      this.buffered -= head.records.length;
      this.bufferedBytes -= head.bytes;
      return head.records;
    }
    const out: KafkaMessage[] = [];
    while (out.length < max && this.chunks.length > 0) {
      const c = this.chunks[0]!;
      const n = Math.min(max - out.length, c.records.length - c.next);
      for (let i = 0; i < n; i++) {
        const rec = c.records[c.next + i]!;
        c.bytes -= size(rec);
        this.bufferedBytes -= size(rec);
        out.push(rec);
      }
      c.next += n;
      if (c.next === c.records.length) this.chunks.shift();
    }
    this.buffered -= out.length;
    return out;
  }

  /** Takes the oldest buffered record (undefined when none). */
  shift(): KafkaMessage | undefined {
    const c = this.chunks[0];
    if (c === undefined) return undefined;
    const rec = c.records[c.next++]!;
    if (c.next === c.records.length) this.chunks.shift();
    this.buffered--;
    c.bytes -= size(rec);
    this.bufferedBytes -= size(rec);
    return rec;
  }

  /** Resolves when the buffer may have room again, or after `ms` (so the caller can heartbeat). */
  waitForSpace(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- `done` is a named function compared by identity
      const self = this;
      function done() {
        clearTimeout(timer);
        if (self.spaceWaiter === done) self.spaceWaiter = undefined;
        resolve();
      }
      this.spaceWaiter = done;
    });
  }

  /** True while the next fetch must wait: `cap` records and a fetch's worth of bytes are unread. */
  full(cap: number): boolean {
    return this.buffered >= cap && this.bufferedBytes >= FETCH_BYTES;
  }

  /** Wakes the fetch handler waiting for room once the buffer is no longer full. */
  spaceFreed(cap: number): void {
    if (this.spaceWaiter !== undefined && !this.full(cap)) this.spaceWaiter();
  }

  /** Wakes the fetch handler whatever the buffer holds (a rebalance, a revoke, closing). */
  interrupt(): void {
    this.spaceWaiter?.();
  }

  /** Records an ack; true when the commit point moved. */
  ack(r: CheckpointRange): boolean {
    const moved = this.checkpoint.ack(r);
    if (this.checkpoint.inFlight === 0 && this.drainWaiters.length > 0) for (const w of this.drainWaiters.splice(0)) w();
    return moved;
  }

  /** Resolves once nothing is in flight, or after `ms`. */
  drained(ms: number): Promise<void> {
    if (this.checkpoint.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.drainWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Drops what was fetched and not handed out: whoever reads the partition next fetches it again. */
  drop(): void {
    this.chunks.length = 0;
    this.buffered = 0;
    this.bufferedBytes = 0;
    this.batch?.discard();
    this.interrupt();
  }
}
