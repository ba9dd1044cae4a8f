import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import kafkajs, { type PartitionMetadata } from 'kafkajs';
import { PartitionError, fnv1a32, fnv1aPartition, murmur2, murmur2Partition, partitionerFor } from './partitioner.js';

const meta = (n: number): PartitionMetadata[] =>
  Array.from({ length: n }, (_, partitionId) => ({ partitionId, leader: 1, replicas: [1], isr: [1], offlineReplicas: [], partitionErrorCode: 0 }));

describe('partitioner: murmur2 (the Java client)', () => {
  it('matches the Java client test vectors (UtilsTest.testMurmur2)', () => {
    const cases: Array<[string, number]> = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [key, want] of cases) assert.equal(murmur2(Buffer.from(key)), want, key);
  });

  it('places keys as the Java DefaultPartitioner does: toPositive(murmur2(key)) % n', () => {
    // toPositive(-973932308) = 1173551340; toPositive(479470107) = 479470107
    assert.equal(murmur2Partition(Buffer.from('21'), 4), 1173551340 % 4);
    assert.equal(murmur2Partition(Buffer.from('abc'), 7), 479470107 % 7);
    assert.equal(murmur2Partition(Buffer.from('foobar'), 1), 0);
  });

  it("agrees with kafkajs' DefaultPartitioner (itself Java-compatible) on random keys", () => {
    const theirs = kafkajs.Partitioners.DefaultPartitioner();
    const ours = partitionerFor('murmur2_hash')();
    for (let i = 0; i < 500; i++) {
      const key = randomBytes(1 + (i % 40));
      const args = { topic: 't', partitionMetadata: meta(12), message: { key, value: 'v' } };
      assert.equal(ours(args), theirs(args), key.toString('hex'));
    }
  });
});

describe('partitioner: fnv1a_hash (sarama)', () => {
  it('hashes with 32-bit FNV-1a', () => {
    assert.equal(fnv1a32(Buffer.from('')), 0x811c9dc5);
    assert.equal(fnv1a32(Buffer.from('a')), 0xe40c292c);
    assert.equal(fnv1a32(Buffer.from('foobar')), 0xbf9cf968);
  });

  it("places keys as sarama's hash partitioner: int32(hash) % n, negated when negative", () => {
    // 0xbf9cf968 as int32 is -1080231576; Go's % truncates: -1080231576 % 10 = -6 → 6
    assert.equal(fnv1aPartition(Buffer.from('foobar'), 10), 6);
    // sarama's MinInt32 case: "1468509572224" hashes to 0x80000000 → -2147483648 % 50 = -48 → 48
    assert.equal(fnv1a32(Buffer.from('1468509572224')), 0x80000000);
    assert.equal(fnv1aPartition(Buffer.from('1468509572224'), 50), 48);
    // 0xe40c292c as int32 is -468965076 → % 7 = -6 → 6
    assert.equal(fnv1aPartition(Buffer.from('a'), 7), 6);
  });

  it('sends keyless records to random partitions, keyed ones always to the same', () => {
    const p = partitionerFor('fnv1a_hash')();
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) seen.add(p({ topic: 't', partitionMetadata: meta(4), message: { key: null, value: 'v' } }));
    assert.ok(seen.size > 1, 'keyless records spread');
    const keyed = new Set<number>();
    for (let i = 0; i < 50; i++) keyed.add(p({ topic: 't', partitionMetadata: meta(4), message: { key: 'same', value: 'v' } }));
    assert.deepEqual([...keyed], [fnv1aPartition(Buffer.from('same'), 4)]);
  });
});

describe('partitioner: round_robin, random, manual', () => {
  it('round_robin cycles per topic', () => {
    const p = partitionerFor('round_robin')();
    const a = Array.from({ length: 6 }, () => p({ topic: 'a', partitionMetadata: meta(3), message: { value: 'v' } }));
    const b = Array.from({ length: 2 }, () => p({ topic: 'b', partitionMetadata: meta(2), message: { value: 'v' } }));
    assert.deepEqual(a, [0, 1, 2, 0, 1, 2]);
    assert.deepEqual(b, [0, 1]);
  });

  it('random stays in range', () => {
    const p = partitionerFor('random')();
    for (let i = 0; i < 100; i++) {
      const n = p({ topic: 't', partitionMetadata: meta(5), message: { value: 'v' } });
      assert.ok(n >= 0 && n < 5);
    }
  });

  it("manual takes the record's partition and refuses one the topic does not have (not retriable)", () => {
    const p = partitionerFor('manual')();
    assert.equal(p({ topic: 't', partitionMetadata: meta(3), message: { value: 'v', partition: 2 } }), 2);
    assert.throws(
      () => p({ topic: 't', partitionMetadata: meta(3), message: { value: 'v', partition: 3 } }),
      (err: unknown) =>
        err instanceof PartitionError && err.retriable === false && /partition 3 does not exist: topic "t" has partitions 0 to 2/.test(err.message),
    );
  });
});
