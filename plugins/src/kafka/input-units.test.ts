/**
 * Unit tests of the `logbus` input's pure parts: topic parsing, the checkpoint, the spec and
 * its lint checks, record → message. (The broker tests are in input.test.ts and beside it.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registry } from '@svc/engine';
import { buildComponent, lintValue, testContext, withDefaults } from '@svc/engine/testing';
import type { KafkaMessage } from 'kafkajs';
import { Checkpoint } from './checkpoint.js';
import { recordMessage } from './input-message.js';
import { inputSpec } from './input-spec.js';
import { parseTopics } from './input-topics.js';
import './input.js';

const lint = (c: Record<string, unknown>) => lintValue(inputSpec, withDefaults(inputSpec, c)).join('\n');

test('topics: plain topics, comma lists, partitions and inclusive ranges', () => {
  const s = parseTopics(['foo, bar', 'baz', 'foo']);
  assert.deepEqual(s.balanced, ['foo', 'bar', 'baz']);
  assert.equal(s.explicit.size, 0);
  const e = parseTopics(['a:0', 'b:1,b:3', 'a:2-4', ' c : 7 ', 'a:3']);
  assert.deepEqual(s.balanced.length, 3);
  assert.deepEqual(e.balanced, []);
  assert.deepEqual(Object.fromEntries(e.explicit), { a: [0, 2, 3, 4], b: [1, 3], c: [7] });
  assert.deepEqual(parseTopics(['x:0-0']).explicit.get('x'), [0]);
  assert.deepEqual(parseTopics(['', ' , ']).balanced, []);
});

test('topics: bad items say what is wrong and how to write them', () => {
  assert.throws(() => parseTopics(['foo:0:1']), /foo:0,foo:1 or foo:0-1/);
  assert.throws(() => parseTopics(['foo:x']), /"x" is not a partition number/);
  assert.throws(() => parseTopics(['foo:3-1']), /ends before it starts \(write foo:1-3\)/);
  assert.throws(() => parseTopics(['foo:1-2-3']), /a range is written N-M/);
  assert.throws(() => parseTopics([':1']), /topic name is missing/);
  assert.throws(() => parseTopics(['foo:-1']), /not a partition number/);
});

test('checkpoint: commits the highest contiguous acked offset + 1, whatever the ack order', () => {
  const c = new Checkpoint(10);
  const a = c.track(2, 3); // offsets 0-2
  const b = c.track(5, 3); // 3-5
  const d = c.track(9, 2); // 8-9 (a gap: compaction)
  assert.equal(c.inFlight, 8);
  assert.equal(c.committable, -1);
  assert.equal(c.ack(b), false, 'b is acked but a is not: nothing to commit');
  assert.equal(c.committable, -1);
  assert.equal(c.ack(a), true);
  assert.equal(c.committable, 6, 'a and b: up to 5');
  assert.equal(c.ack(a), false, 'a second ack changes nothing');
  assert.equal(c.inFlight, 2);
  assert.equal(c.ack(d), true);
  assert.equal(c.committable, 10);
  assert.equal(c.inFlight, 0);
});

test('checkpoint: the limit gates new transactions; 1 is lock-step', () => {
  const c = new Checkpoint(1);
  assert.equal(c.open, true);
  assert.equal(c.room, 1);
  const r = c.track(0, 1);
  assert.equal(c.open, false);
  assert.equal(c.room, 0);
  c.ack(r);
  assert.equal(c.open, true);
  const big = new Checkpoint(4);
  big.track(9, 10); // a batch may outgrow the limit; the next waits
  assert.equal(big.open, false);
  assert.equal(big.room, 0);
});

test('checkpoint: many ranges acked out of order stay correct (compaction of the queue)', () => {
  const c = new Checkpoint(1_000_000);
  const ranges = Array.from({ length: 5000 }, (_, i) => c.track(i, 1));
  for (let i = 1; i < 5000; i += 2) c.ack(ranges[i]!);
  assert.equal(c.committable, -1);
  for (let i = 0; i < 4000; i += 2) c.ack(ranges[i]!);
  assert.equal(c.committable, 4000);
  for (let i = 4000; i < 5000; i += 2) c.ack(ranges[i]!);
  assert.equal(c.committable, 5000);
  assert.equal(c.inFlight, 0);
});

test('spec: registered as logbus and kafka, defaults as documented', () => {
  assert.equal(registry().get('input', 'kafka')?.spec, registry().get('input', 'logbus')?.spec);
  const c = withDefaults(inputSpec, { addresses: ['a:9092'], topics: ['t'], consumer_group: 'g' });
  assert.equal(c.client_id, 'svc');
  assert.equal(c.start_from_oldest, true);
  assert.equal(c.checkpoint_limit, 1024);
  assert.equal(c.auto_replay_nacks, true);
  assert.equal(c.commit_period, '1s');
  assert.equal(c.max_processing_period, '100ms');
  assert.deepEqual(c.group, { session_timeout: '10s', heartbeat_interval: '3s', rebalance_timeout: '60s' });
  assert.equal(c.fetch_buffer_cap, 256);
  assert.equal(c.multi_header, false);
  assert.equal(c.sasl.mechanism, 'none');
  assert.equal(c.batching.count, 0);
  assert.equal(lint({ addresses: ['a:9092'], topics: ['t'], consumer_group: 'g' }), '');
});

test('lint: mixing balanced and explicit topics, a group-less balanced topic, bad values', () => {
  assert.match(lint({ addresses: ['a'], topics: ['foo', 'bar:0'], consumer_group: 'g' }), /cannot be mixed in one input/);
  assert.match(lint({ addresses: ['a'], topics: ['foo'] }), /consumer_group is required/);
  assert.equal(lint({ addresses: ['a'], topics: ['foo:0-3'] }), '', 'explicit partitions need no group');
  assert.match(lint({ addresses: ['a'], topics: ['foo:a'], consumer_group: 'g' }), /not a partition number/);
  assert.match(lint({ addresses: ['a'], topics: [], consumer_group: 'g' }), /at least one topic/);
  assert.match(lint({ addresses: ['a'], topics: ['t'], consumer_group: 'g', checkpoint_limit: 0 }), /checkpoint_limit must be at least 1/);
  assert.match(lint({ addresses: ['a'], topics: ['t'], consumer_group: 'g', fetch_buffer_cap: 0 }), /fetch_buffer_cap must be at least 1/);
  assert.match(
    lint({ addresses: ['a'], topics: ['t'], consumer_group: 'g', group: { session_timeout: '3s', heartbeat_interval: '3s' } }),
    /heartbeat_interval must be shorter/,
  );
  assert.match(lint({ addresses: ['a'], topics: ['t'], consumer_group: 'g', commit_period: '0' }), /commit_period must be a positive/);
  assert.match(lint({ addresses: ['a'], topics: ['t'], consumer_group: 'g', sasl: { mechanism: 'PLAIN' } }), /needs a user/);
});

test('what only the client can check fails the build, naming the field', async () => {
  const conf = { addresses: ['a:9092'], topics: ['t'], consumer_group: 'g', sasl: { mechanism: 'OAUTHBEARER', token_cache: 'c', token_key: 'k' } };
  await assert.rejects(buildComponent('input', 'kafka', conf, testContext({ type: 'kafka' })), /sasl\.token_cache: cache resources are not available/);
});

test("record → message: content, logbus_* and Benthos' kafka_* metadata, headers (last value, or lists with multi_header)", () => {
  const rec = {
    key: Buffer.from('k1'),
    value: Buffer.from('hello'),
    timestamp: '1700000000123',
    offset: '41',
    headers: { a: Buffer.from('1'), rep: [Buffer.from('x'), Buffer.from('y')] },
  } as unknown as KafkaMessage;
  const m = recordMessage(rec, 't', 3, 41, 50, false);
  assert.equal(m.text(), 'hello');
  assert.deepEqual(m.metaObject(), {
    a: '1',
    rep: 'y',
    logbus_key: 'k1',
    logbus_topic: 't',
    logbus_partition: 3,
    logbus_offset: 41,
    logbus_lag: 8,
    logbus_timestamp_unix: 1700000000,
    logbus_tombstone_message: false,
    kafka_key: 'k1',
    kafka_topic: 't',
    kafka_partition: 3,
    kafka_offset: 41,
    kafka_lag: 8,
    kafka_timestamp_ms: 1700000000123,
    kafka_timestamp_unix: 1700000000,
    kafka_tombstone_message: false,
  });
  const multi = recordMessage(rec, 't', 3, 41, 42, true);
  assert.deepEqual(multi.getMeta('rep'), ['x', 'y']);
  assert.deepEqual(multi.getMeta('a'), ['1']);
  assert.equal(multi.getMeta('logbus_lag'), 0);
  const tomb = recordMessage({ ...rec, key: null, value: null, headers: {} } as unknown as KafkaMessage, 't', 0, 41, 10, false);
  assert.equal(tomb.content.length, 0);
  assert.equal(tomb.getMeta('logbus_tombstone_message'), true);
  assert.equal(tomb.getMeta('logbus_key'), '');
  assert.equal(tomb.getMeta('logbus_lag'), 0, 'never below 0');
});
