/**
 * The `partitioner` of the `logbus` / `kafka` output: which partition of its topic a record goes
 * to. The hashes are the ones configs written for Benthos expect, so a key lands in the same
 * partition whichever engine wrote it:
 *
 * - `fnv1a_hash`: 32-bit FNV-1a of the key, as sarama's hash partitioner (`int32(h) % n`, negated
 *   when negative). A record without a key goes to a random partition, as there.
 * - `murmur2_hash`: the Java client's default partitioner, `toPositive(murmur2(key)) % n`; a record
 *   without a key goes to a random partition (Benthos' sarama setup).
 * - `random`, `round_robin` (a counter per topic), `manual` (the record's own `partition`).
 */
import type { ICustomPartitioner, Message as KafkaMessage, PartitionerArgs } from 'kafkajs';

export const PARTITIONERS = ['fnv1a_hash', 'murmur2_hash', 'random', 'round_robin', 'manual'] as const;
export type PartitionerName = (typeof PARTITIONERS)[number];

/** 32-bit FNV-1a, unsigned. */
export function fnv1a32(data: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < data.length; i++) {
    h ^= data[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Kafka's murmur2 (`org.apache.kafka.common.utils.Utils.murmur2`), as a signed 32-bit int like Java's. */
export function murmur2(data: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const blocks = length & ~3;
  for (let i = 0; i < blocks; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  // The tail, as Java's switch with fall-through: 3 bytes mix in the third, then the second, then the first.
  const tail = length & 3;
  if (tail === 3) h ^= data[blocks + 2]! << 16;
  if (tail >= 2) h ^= data[blocks + 1]! << 8;
  if (tail >= 1) {
    h ^= data[blocks]!;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** sarama's hash partitioner arithmetic: Go's truncating `%` on the signed hash, then the absolute value. */
export function fnv1aPartition(key: Uint8Array, partitions: number): number {
  return Math.abs((fnv1a32(key) | 0) % partitions);
}

/** The Java client's: `Utils.toPositive(Utils.murmur2(key)) % numPartitions`. */
export function murmur2Partition(key: Uint8Array, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}

/** A record whose partition cannot be used: the write fails without retrying inside kafkajs. */
export class PartitionError extends Error {
  /** kafkajs bails out at once on an error that says it is not retriable. */
  readonly retriable = false;
  constructor(message: string) {
    super(message);
    this.name = 'PartitionError';
  }
}

function keyBytes(message: KafkaMessage): Uint8Array | undefined {
  const key = message.key;
  if (key === null || key === undefined || key.length === 0) return undefined;
  return typeof key === 'string' ? Buffer.from(key) : key;
}

const randomPartition = (n: number) => Math.floor(Math.random() * n);

/** The kafkajs partitioner for a `partitioner` setting; `manual` takes each record's `partition`. */
export function partitionerFor(name: PartitionerName): ICustomPartitioner {
  return () => {
    const counters = new Map<string, number>();
    return ({ topic, partitionMetadata, message }: PartitionerArgs): number => {
      const n = partitionMetadata.length;
      switch (name) {
        case 'manual': {
          const p = message.partition;
          if (p === undefined || p === null || p < 0 || p >= n) {
            throw new PartitionError(`partition ${String(p)} does not exist: topic "${topic}" has partitions 0 to ${n - 1}`);
          }
          return p;
        }
        case 'random':
          return randomPartition(n);
        case 'round_robin': {
          const next = counters.get(topic) ?? 0;
          counters.set(topic, next + 1 >= n ? 0 : next + 1);
          return next % n;
        }
        case 'fnv1a_hash': {
          const key = keyBytes(message);
          return key ? fnv1aPartition(key, n) : randomPartition(n);
        }
        case 'murmur2_hash': {
          const key = keyBytes(message);
          return key ? murmur2Partition(key, n) : randomPartition(n);
        }
      }
    };
  };
}
