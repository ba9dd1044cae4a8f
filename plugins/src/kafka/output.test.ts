/**
 * The `logbus` / `kafka` output against the real broker started by scripts/services.sh: every
 * topic is created here with a unique name and deleted at the end; records are read back with a
 * plain kafkajs consumer.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import kafkajs, { type Admin, type IHeaders, type Kafka as KafkaClient } from 'kafkajs';
import { Message, NotConnectedError, registry, setTraceParent, type Batch } from '@svc/engine';
import { buildComponent, lintValue, serviceAddress, testContext, waitFor, withDefaults, TcpOutage, type TestContext } from '@svc/engine/testing';
import { KafkaWriteError, isConnectionLoss } from './output-errors.js';
import { KafkaOutput, type KafkaOutputConfig } from './output.js';
import { fnv1aPartition, murmur2Partition } from './partitioner.js';
import { createServedTopics } from './topic-test-support.js';
import { loadKafkajs } from './kafkajs.js';

const { Kafka, logLevel } = kafkajs;
const BROKERS = serviceAddress('SVC_KAFKA_BROKERS');
const SASL_BROKERS = serviceAddress('SVC_KAFKA_SASL_BROKERS');
const OUTPUT_MODULE = fileURLToPath(new URL('./output.js', import.meta.url));
const ENGINE = fileURLToPath(new URL('../../../engine/dist/cli/main.js', import.meta.url));

let kafka: KafkaClient;
let admin: Admin;
const created: string[] = [];
const opened: KafkaOutput[] = [];

before(async () => {
  kafka = new Kafka({ clientId: 'output-test', brokers: [BROKERS], logLevel: logLevel.NOTHING });
  admin = kafka.admin();
  await admin.connect();
});
after(async () => {
  await Promise.allSettled(opened.map((o) => o.close()));
  await admin.deleteTopics({ topics: created }).catch(() => {});
  await admin.disconnect();
});

const unique = (name: string) => `out-${name}-${randomBytes(4).toString('hex')}`;

async function topic(name: string, partitions = 1, config: Record<string, string> = {}): Promise<string> {
  const t = unique(name);
  created.push(t);
  await createServedTopics(admin, [{ topic: t, numPartitions: partitions, configEntries: Object.entries(config).map(([k, v]) => ({ name: k, value: v })) }]);
  return t;
}

interface Read {
  topic: string;
  partition: number;
  offset: number;
  key: string | null;
  value: string;
  headers: IHeaders;
}

/** The waits an output announced before its retries (`...; retrying in 80ms`). */
const retryWaits = (ctx: TestContext) => ctx.logger.lines.flatMap((l) => /; retrying in (\d+)ms$/.exec(l.msg)?.[1] ?? []).map(Number);

/** Reads `count` records from the topics, from the start; fails after a while saying how many came. */
async function read(topics: string[], count: number, timeoutMs = 30_000): Promise<Read[]> {
  const consumer = kafka.consumer({ groupId: unique('reader'), maxWaitTimeInMs: 100 });
  const out: Read[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic: t, partition, message }) => {
        out.push({
          topic: t,
          partition,
          offset: Number(message.offset),
          key: message.key === null ? null : message.key.toString(),
          value: message.value?.toString() ?? '',
          headers: message.headers ?? {},
        });
      },
    });
    await waitFor(`${count} records from ${topics.join(', ')} (have ${out.length})`, async () => (out.length >= count ? true : undefined), timeoutMs, 50);
  } finally {
    await consumer.disconnect();
  }
  return out;
}

async function landed(t: string): Promise<number> {
  return (await admin.fetchTopicOffsets(t)).reduce((n, p) => n + Number(p.high), 0);
}

async function output(config: Record<string, unknown>, name = 'kafka', ctx = testContext({ type: name, path: 'root.output' })): Promise<KafkaOutput> {
  const o = await buildComponent<KafkaOutput>('output', name, { addresses: [BROKERS], ...config }, ctx);
  opened.push(o);
  return o;
}

async function connected(config: Record<string, unknown>, name = 'kafka', ctx?: TestContext): Promise<KafkaOutput> {
  const o = await output(config, name, ctx);
  await o.connect();
  return o;
}

const msgs = (n: number, meta: (i: number) => Record<string, string> = () => ({})): Batch => Array.from({ length: n }, (_, i) => new Message(`m${i}`, meta(i)));

const header = (h: IHeaders, k: string) => {
  const v = h[k];
  return Array.isArray(v) ? v.map((x) => x.toString()) : v?.toString();
};

describe('kafka output: spec', () => {
  const spec = () => registry().get('output', 'kafka')!.spec.config;

  it('is registered as logbus and kafka with one spec', () => {
    assert.equal(registry().get('output', 'logbus')!.spec.config, registry().get('output', 'kafka')!.spec.config);
  });

  it('lints: required fields, partition only with manual, topic creation bounds, enums', () => {
    // As the config validator sees it: defaults filled in.
    const lintFull = (v: Record<string, unknown>) => lintValue(spec(), withDefaults(spec(), v));
    const lint = (v: Record<string, unknown>) => lintFull({ addresses: ['b:9092'], topic: 't', ...v }).join('\n');
    assert.equal(lint({}), '');
    assert.match(lintFull({}).join(), /addresses: required/);
    assert.match(lintFull({ addresses: ['b'] }).join(), /topic: required/);
    assert.match(lint({ partition: '1' }), /partition is only used with partitioner manual/);
    assert.match(lint({ partitioner: 'manual' }), /partitioner manual needs a partition/);
    assert.equal(lint({ partitioner: 'manual', partition: '${! meta("p") }' }), '');
    assert.equal(lint({ partitioner: 'manual', partition: '3' }), '');
    assert.match(lint({ partitioner: 'manual', partition: 'three' }), /partition "three" is not an integer/);
    assert.match(lint({ partitioner: 'manual', partition: '4294967296' }), /does not fit in 32 bits/);
    assert.match(lint({ custom_topic_creation: { enabled: true, partitions: 0 } }), /partitions must be -1 .* or at least 1, got 0/);
    assert.equal(lint({ custom_topic_creation: { enabled: true, partitions: 1 } }), '');
    assert.match(lint({ custom_topic_creation: { enabled: true, replication_factor: 2 } }), /replication_factor must be -1 .* or an odd number, got 2/);
    assert.equal(lint({ custom_topic_creation: { enabled: true, replication_factor: 3 } }), '');
    assert.equal(lint({ custom_topic_creation: { enabled: false, partitions: 0, replication_factor: 2 } }), '', 'checked only when enabled');
    assert.match(lint({ compression: 'brotli' }), /expected one of none, snappy, lz4, gzip, zstd/);
    assert.match(lint({ partitioner: 'crc32' }), /expected one of fnv1a_hash, murmur2_hash, random, round_robin, manual/);
    assert.match(lint({ max_in_flight: 0 }), /max_in_flight must be at least 1/);
    assert.match(lint({ backoff: { max_elapsed_time: 'soon' } }), /invalid duration "soon"/);
  });

  it('has the documented defaults', async () => {
    const o = (await output({ topic: 't' })) as unknown as { conf: Record<string, unknown> };
    const c = o.conf as Record<string, unknown> & { backoff: Record<string, string>; custom_topic_creation: Record<string, unknown> };
    assert.equal(c.client_id, 'svc');
    assert.equal(c.partitioner, 'fnv1a_hash');
    assert.equal(c.compression, 'none');
    assert.equal(c.max_in_flight, 64);
    assert.equal(c.max_msg_bytes, 1000000);
    assert.equal(c.timeout, '5s');
    assert.equal(c.max_retries, 0);
    assert.deepEqual(c.backoff, { initial_interval: '3s', max_interval: '10s', max_elapsed_time: '30s' });
    assert.deepEqual(c.custom_topic_creation, { enabled: false, partitions: -1, replication_factor: -1 });
    assert.equal(c.idempotent_write, false);
    assert.equal(c.ack_replicas, false);
    assert.equal(c.retry_as_batch, false);
  });

  it('documents itself with examples that pass `engine lint`', () => {
    const reg = registry().get('output', 'kafka')!.spec;
    assert.ok(reg.summary && reg.description && reg.examples?.length);
    const dir = mkdtempSync(join(tmpdir(), 'svc-kafka-output-'));
    try {
      const files = reg.examples!.map((yaml, i) => {
        const file = join(dir, `example-${i}.yaml`);
        writeFileSync(file, yaml);
        return file;
      });
      const bad = join(dir, 'bad.yaml');
      writeFileSync(bad, 'output:\n  logbus:\n    addresses: [ x:9092 ]\n    topic: t\n    partition: "2"\n');
      const ok = spawnSync(process.execPath, [ENGINE, 'lint', '--plugin', OUTPUT_MODULE, ...files], { encoding: 'utf8', timeout: 20_000 });
      assert.equal(ok.status, 0, ok.stderr + ok.stdout);
      const no = spawnSync(process.execPath, [ENGINE, 'lint', '--plugin', OUTPUT_MODULE, bad], { encoding: 'utf8', timeout: 20_000 });
      assert.notEqual(no.status, 0);
      assert.match(no.stderr + no.stdout, /bad\.yaml:\d+:\d+ .*partition is only used with partitioner manual/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kafka output: records', () => {
  it('writes keys, metadata headers (minus excluded prefixes, structured as JSON) and static headers', async () => {
    const t = await topic('headers');
    const o = await connected({
      topic: t,
      key: '${! @id }',
      static_headers: { source: 'svc', kind: 'static' },
      metadata: { exclude_prefixes: ['internal_', 'drop'] },
    });
    const batch = msgs(3, (i) => ({ id: `k${i}`, internal_secret: 'no', dropped: 'no', trace: `t${i}` }));
    batch[1]!.setMeta('doc', { a: [1, 2] });
    batch[2]!.setMeta('kind', 'meta');
    batch[2]!.setMeta('id', ''); // an empty key: no key at all
    await o.write(batch);
    const got = (await read([t], 3)).sort((a, b) => a.offset - b.offset);
    assert.deepEqual(
      got.map((r) => r.value),
      ['m0', 'm1', 'm2'],
    );
    assert.deepEqual(
      got.map((r) => r.key),
      ['k0', 'k1', null],
    );
    assert.equal(header(got[0]!.headers, 'trace'), 't0');
    assert.equal(header(got[0]!.headers, 'id'), 'k0');
    assert.equal(header(got[0]!.headers, 'source'), 'svc');
    assert.equal(header(got[0]!.headers, 'internal_secret'), undefined);
    assert.equal(header(got[0]!.headers, 'dropped'), undefined);
    assert.equal(header(got[1]!.headers, 'doc'), '{"a":[1,2]}');
    // A static header beside a metadata header of the same name: Kafka headers are a list, both are kept.
    assert.deepEqual(header(got[2]!.headers, 'kind'), ['meta', 'static']);
  });

  it('routes by an interpolated topic: one batch into two topics', async () => {
    const a = await topic('route-a');
    const b = await topic('route-b');
    const o = await connected({ topic: '${! meta("to") }' });
    await o.write(msgs(10, (i) => ({ to: i % 2 === 0 ? a : b })));
    const got = await read([a, b], 10);
    assert.deepEqual(
      got
        .filter((r) => r.topic === a)
        .map((r) => r.value)
        .sort(),
      ['m0', 'm2', 'm4', 'm6', 'm8'],
    );
    assert.deepEqual(
      got
        .filter((r) => r.topic === b)
        .map((r) => r.value)
        .sort(),
      ['m1', 'm3', 'm5', 'm7', 'm9'],
    );
  });

  it('injects the trace context with inject_tracing_map', async () => {
    const t = await topic('tracing');
    const o = await connected({ topic: t, inject_tracing_map: 'meta = @.merge(this)' });
    const m = new Message('traced', { a: 'b' });
    setTraceParent(m, { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', sampled: true });
    await o.write([m, new Message('untraced')]);
    const got = (await read([t], 2)).sort((x, y) => x.offset - y.offset);
    assert.equal(header(got[0]!.headers, 'traceparent'), '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    assert.equal(header(got[0]!.headers, 'a'), 'b');
    assert.equal(header(got[1]!.headers, 'traceparent'), undefined);
    assert.equal(m.getMeta('traceparent'), undefined, "the pipeline's message is left as it was");
  });
});

describe('kafka output: partitioners', () => {
  it('manual: each record in the partition its interpolation names; a partition the topic lacks fails at once', async () => {
    const t = await topic('manual', 3);
    const ctx = testContext({ type: 'kafka', path: 'root.output' });
    const o = await connected({ topic: t, partitioner: 'manual', partition: '${! meta("p") }' }, 'kafka', ctx);
    await o.write(msgs(9, (i) => ({ p: String(i % 3) })));
    const got = await read([t], 9);
    for (const r of got) assert.equal(r.partition, Number(r.value.slice(1)) % 3, r.value);
    await assert.rejects(
      o.write(msgs(1, () => ({ p: '7' }))),
      (err: unknown) => err instanceof KafkaWriteError && err.permanent && /partition 7 does not exist/.test(err.message),
    );
    await assert.rejects(o.write(msgs(1, () => ({ p: 'x' }))), /kafka output root\.output: message 0 of the batch: partition "x" is not an integer/);
    assert.deepEqual(retryWaits(ctx), [], 'no retries for a partition that cannot exist');
  });

  it('round_robin spreads evenly over the partitions', async () => {
    const t = await topic('rr', 4);
    const o = await connected({ topic: t, partitioner: 'round_robin' });
    await o.write(msgs(40));
    const per = (await admin.fetchTopicOffsets(t)).map((p) => Number(p.high));
    assert.deepEqual(per, [10, 10, 10, 10]);
  });

  it('fnv1a_hash and murmur2_hash put each key where sarama and the Java client would', async () => {
    for (const partitioner of ['fnv1a_hash', 'murmur2_hash'] as const) {
      const t = await topic(partitioner.replace('_', '-'), 5);
      const o = await connected({ topic: t, key: '${! meta("k") }', partitioner });
      await o.write(msgs(30, (i) => ({ k: `key-${i}` })));
      const want = partitioner === 'fnv1a_hash' ? fnv1aPartition : murmur2Partition;
      const got = await read([t], 30);
      for (const r of got) assert.equal(r.partition, want(Buffer.from(r.key!), 5), `${partitioner} ${r.key}`);
      assert.ok(new Set(got.map((r) => r.partition)).size > 1, 'keys spread');
    }
  });
});

describe('kafka output: compression', () => {
  const codecs = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

  it('writes every codec so that a kafkajs consumer reads it back, and the broker (Java) decodes it', async () => {
    for (const compression of codecs) {
      const t = await topic(`codec-${compression}`, 2);
      // The broker re-compresses what it gets into gzip: it must decode our batches with its own (Java) codecs first.
      const recompressed = await topic(`recodec-${compression}`, 1, { 'compression.type': 'gzip' });
      const o = await connected({ topic: '${! meta("to") }', compression });
      const body = (i: number) => JSON.stringify({ i, text: 'compressible '.repeat(50) });
      const batch = (to: string) => Array.from({ length: 300 }, (_, i) => new Message(body(i), { to }));
      await o.write(batch(t));
      await o.write(batch(recompressed));
      for (const target of [t, recompressed]) {
        const got = await read([target], 300);
        assert.deepEqual(
          got.map((r) => r.value).sort(),
          batch(target)
            .map((m) => m.text())
            .sort(),
          `${compression} → ${target}`,
        );
      }
    }
  });

  it('reads batches the broker compressed itself (xerial snappy, Java lz4, streamed zstd over 1 MiB)', async () => {
    const o = await connected({ topic: '${! meta("to") }' });
    for (const codec of ['snappy', 'lz4', 'zstd']) {
      const t = await topic(`broker-${codec}`, 1, { 'compression.type': codec });
      // One produce request of ~1.4 MB: one batch, compressed by the broker.
      const big = Array.from({ length: 700 }, (_, i) => new Message(`${i}:${'x'.repeat(2000)}`, { to: t }));
      await o.write(big);
      const got = await read([t], 700);
      assert.equal(got.length, 700);
      assert.ok(
        got.every((r) => r.value.length > 2000),
        codec,
      );
    }
  });
});

describe('kafka output: topics', () => {
  it('custom_topic_creation creates a missing topic with the partitions asked', async () => {
    const t = unique('created');
    created.push(t);
    const o = await connected({
      topic: t,
      custom_topic_creation: { enabled: true, partitions: 3 },
      partitioner: 'round_robin',
      backoff: { initial_interval: '100ms', max_interval: '500ms' },
    });
    await o.write(msgs(6));
    const meta = await admin.fetchTopicMetadata({ topics: [t] });
    assert.equal(meta.topics[0]!.partitions.length, 3);
    assert.deepEqual(
      (await admin.fetchTopicOffsets(t)).map((p) => Number(p.high)),
      [2, 2, 2],
    );
    // Deleted behind the output's back: created again on the next write.
    await admin.deleteTopics({ topics: [t] });
    await o.write(msgs(3));
    assert.equal((await admin.fetchTopicMetadata({ topics: [t] })).topics[0]!.partitions.length, 3);
    assert.equal(await landed(t), 3);
    // Writers racing to create the same topic all succeed.
    const t2 = unique('created-concurrent');
    created.push(t2);
    const writers = await Promise.all(Array.from({ length: 4 }, () => connected({ topic: t2, custom_topic_creation: { enabled: true } })));
    await Promise.all(writers.map((w) => w.write(msgs(1))));
    assert.equal(await landed(t2), 4);
  });

  it('refuses a replication factor above the number of brokers when connecting', async () => {
    const o = await output({ topic: 't', custom_topic_creation: { enabled: true, replication_factor: 3 } });
    await assert.rejects(o.connect(), /kafka output root\.output: custom_topic_creation\.replication_factor 3 is above the number of brokers \(1\)/);
  });

  it('a topic that does not exist (no custom_topic_creation): a clear error naming it, within the back-off bounds', async () => {
    const t = unique('missing');
    const ctx = testContext({ type: 'kafka', path: 'root.output' });
    const o = await connected({ topic: t, max_retries: 2, backoff: { initial_interval: '50ms', max_interval: '100ms' } }, 'kafka', ctx);
    await assert.rejects(
      o.write(msgs(2)),
      (err: unknown) =>
        err instanceof KafkaWriteError &&
        err.message.startsWith('kafka output root.output: ') &&
        err.message.includes(`topic "${t}" does not exist: create it, or enable custom_topic_creation`) &&
        /gave up after 2 retries/.test(err.message),
    );
    const waits = retryWaits(ctx);
    // initial_interval, then doubled up to max_interval, each with ±20% jitter.
    assert.equal(waits.length, 2, `two retries: ${waits.join(', ')}`);
    assert.ok(waits[0]! >= 40 && waits[0]! <= 60 && waits[1]! >= 80 && waits[1]! <= 120, `the waits chosen: ${waits.join(', ')}`);
    // max_elapsed_time bounds it too.
    const p = await connected({ topic: t, backoff: { initial_interval: '100ms', max_interval: '200ms', max_elapsed_time: '1s' } }, 'logbus');
    await assert.rejects(
      p.write(msgs(1)),
      /logbus output root\.output: topic ".*" does not exist.*gave up after retrying for \d+ms \(backoff\.max_elapsed_time is 1s\)/,
    );
  });
});

describe('kafka output: bad input', () => {
  it('wrong addresses: connect fails saying which component and which brokers', async () => {
    const o = await output({ addresses: ['127.0.0.1:1'], topic: 't' });
    await assert.rejects(o.connect(), (err: unknown) => {
      assert.ok(err instanceof NotConnectedError);
      assert.match(err.message, /^kafka output root\.output: cannot connect to the brokers \(127\.0\.0\.1:1\): .*ECONNREFUSED.*check addresses/);
      return true;
    });
    await assert.rejects(o.write(msgs(1)), NotConnectedError);
  });

  it('a connection error from kafkajs counts as a lost connection (the runtime reconnects)', async () => {
    const raw = new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).producer();
    const err = await raw.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isConnectionLoss(err));
  });

  it('a message over max_msg_bytes: the batch is refused whole, naming the message and its size; nothing written, nothing lost', async () => {
    const t = await topic('too-big');
    const o = await connected({ topic: t, max_msg_bytes: 1000, static_headers: { h: 'v' } });
    const batch = [new Message('small'), new Message('x'.repeat(999)), new Message('also small')];
    await assert.rejects(o.write(batch), (err: unknown) => {
      assert.ok(err instanceof KafkaWriteError && err.permanent);
      assert.match(
        err.message,
        /^kafka output root\.output: message 1 is 1001 bytes \(value, key and headers\), above max_msg_bytes 1000: none of the batch's 3 messages was sent/,
      );
      return true;
    });
    assert.equal(await landed(t), 0, 'no part of the refused batch was written');
    // The write rejected, so the runtime nacks the batch back to its input: once the message fits, all of it goes.
    const bigger = await connected({ topic: t, max_msg_bytes: 2000, static_headers: { h: 'v' } });
    await bigger.write(batch);
    assert.deepEqual(
      (await read([t], 3)).map((r) => r.value.length),
      [5, 999, 10],
    );
  });

  it('a batch larger than max_msg_bytes goes out as several requests, in order', async () => {
    const t = await topic('split');
    const o = await connected({ topic: t, max_msg_bytes: 10_000 });
    const batch = Array.from({ length: 100 }, (_, i) => new Message(`${String(i).padStart(3, '0')}${'y'.repeat(997)}`));
    await o.write(batch);
    const got = (await read([t], 100)).sort((a, b) => a.offset - b.offset);
    assert.deepEqual(
      got.map((r) => Number(r.value.slice(0, 3))),
      Array.from({ length: 100 }, (_, i) => i),
    );
  });

  it('a failed interpolation refuses the batch before anything is sent', async () => {
    const t = await topic('interp');
    const o = await connected({ topic: t, key: '${! json("id") }' });
    await assert.rejects(o.write([new Message('{"id":1}'), new Message('not json')]), /kafka output root\.output: message 1 of the batch: /);
    assert.equal(await landed(t), 0);
  });
});

describe('kafka output: acks, idempotence, SASL', () => {
  it('ack_replicas and idempotent_write produce', async () => {
    const t = await topic('acks', 2);
    const a = await connected({ topic: t, ack_replicas: true });
    const i = await connected({ topic: t, idempotent_write: true, key: '${! content() }' });
    await a.write(msgs(5));
    await i.write(msgs(5));
    await i.write(msgs(5));
    assert.equal(await landed(t), 15);
  });

  const token = () => {
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    return `${b64({ alg: 'none' })}.${b64({ sub: 'svc', iat: now, exp: now + 3600 })}.`;
  };

  it('authenticates with SASL PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER', async () => {
    const t = await topic('sasl');
    const mechanisms: Array<Record<string, string>> = [
      { mechanism: 'PLAIN', user: 'svc', password: 'svc-secret' },
      { mechanism: 'SCRAM-SHA-256', user: 'svc', password: 'svc-secret' },
      { mechanism: 'SCRAM-SHA-512', user: 'svc', password: 'svc-secret' },
      { mechanism: 'OAUTHBEARER', access_token: token() },
    ];
    for (const sasl of mechanisms) {
      const o = await connected({ addresses: [SASL_BROKERS], topic: t, sasl });
      await o.write([new Message(sasl.mechanism!)]);
      await o.close();
    }
    assert.deepEqual((await read([t], 4)).map((r) => r.value).sort(), ['OAUTHBEARER', 'PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512']);
  });

  it('a wrong password: a clear error naming the component, without the password', async () => {
    for (const mechanism of ['PLAIN', 'SCRAM-SHA-512']) {
      const ctx = testContext({ type: 'logbus', path: 'root.output' });
      const o = await buildComponent<KafkaOutput>(
        'output',
        'logbus',
        { addresses: [SASL_BROKERS], topic: 't', sasl: { mechanism, user: 'svc', password: 'not-the-Pa55word' } },
        ctx,
      );
      opened.push(o);
      await assert.rejects(o.connect(), (err: unknown) => {
        const text = String((err as Error).message);
        assert.match(
          text,
          new RegExp(
            `^logbus output root\\.output: cannot connect to the brokers \\(${SASL_BROKERS}\\): .*the brokers refused the SASL ${mechanism} credentials as user "svc": check sasl\\.user and sasl\\.password`,
          ),
        );
        assert.ok(!text.includes('not-the-Pa55word'), 'the password is not in the error');
        return true;
      });
      assert.ok(!JSON.stringify(ctx.logger.lines).includes('not-the-Pa55word'), 'nor in the logs');
    }
  });
});

describe('kafka output: retries', () => {
  it('retry_as_batch false sends again only the topics that failed; true resends the whole request', async () => {
    for (const retry_as_batch of [false, true]) {
      const present = await topic(`partial-${retry_as_batch}`);
      const missing = unique('partial-missing');
      const o = await connected({ topic: '${! meta("to") }', retry_as_batch, max_retries: 2, backoff: { initial_interval: '20ms', max_interval: '50ms' } });
      const batch = msgs(6, (i) => ({ to: i % 2 === 0 ? present : missing }));
      await assert.rejects(o.write(batch), new RegExp(`topic "${missing}" does not exist`));
      // Split per topic, the present topic's records went through once; whole, the request never could.
      assert.equal(await landed(present), retry_as_batch ? 0 : 3, `retry_as_batch: ${retry_as_batch}`);
    }
  });

  it('a lost connection is a NotConnectedError; after a reconnect the same batch is written, nothing dropped', async () => {
    const t = await topic('outage', 2);
    const proxy = new TcpOutage({ host: BROKERS.split(':')[0]!, port: Number(BROKERS.split(':')[1]) });
    const port = await proxy.start();
    try {
      // Every broker connection (bootstrap and the advertised address) goes through the proxy.
      const socketFactory = ({ onConnect }: { onConnect: () => void }) => connect({ host: '127.0.0.1', port }, onConnect);
      const ctx = testContext({ type: 'kafka', path: 'root.output' });
      const conf = withDefaults(registry().get('output', 'kafka')!.spec.config, { addresses: [BROKERS], topic: t, key: '${! content() }' });
      await loadKafkajs(); // as the factory does before it constructs
      const o = new KafkaOutput(conf as KafkaOutputConfig, ctx, { socketFactory });
      opened.push(o);
      await o.connect();
      await o.write(msgs(10));
      proxy.cut(1500);
      const batch = Array.from({ length: 10 }, (_, i) => new Message(`after-${i}`));
      await assert.rejects(
        o.write(batch),
        (err: unknown) => err instanceof NotConnectedError && /kafka output root\.output: lost the connection to the brokers/.test(err.message),
      );
      // What the runtime does: reconnect with back-off, then write the same batch again.
      await waitFor(
        'the reconnect',
        async () =>
          o.connect().then(
            () => true,
            () => undefined,
          ),
        20_000,
        200,
      );
      await o.write(batch);
      const got = await read([t], 20);
      assert.deepEqual(
        got
          .map((r) => r.value)
          .filter((v) => v.startsWith('after-'))
          .sort(),
        batch.map((m) => m.text()).sort(),
      );
      assert.ok(proxy.accepted > 1, 'the client reconnected through the proxy');
    } finally {
      await proxy.stop();
    }
  });
});

describe('kafka output: strict ordering (engine CLI)', () => {
  it('the documented recipe keeps order in a partition while the topic is missing, then delivers every message once', async () => {
    const t = unique('ordered');
    created.push(t);
    const N = 300;
    const yaml = `
http:
  enabled: false
input:
  generate:
    count: ${N}
    interval: ""
    batch_size: 10
    mapping: 'root = counter()'
output:
  logbus:
    addresses: [ ${BROKERS} ]
    topic: ${t}
    key: same
    max_in_flight: 1
    batching:
      count: 25
    retry_as_batch: true
    max_retries: 0
    backoff:
      initial_interval: 100ms
      max_interval: 300ms
      max_elapsed_time: ""
logger:
  level: WARN
`;
    const dir = mkdtempSync(join(tmpdir(), 'svc-kafka-order-'));
    const file = join(dir, 'ordered.yaml');
    writeFileSync(file, yaml);
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [ENGINE, '--plugin', OUTPUT_MODULE, '-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // The output retries the first batch (back pressure) until the topic appears.
      await waitFor('the output to retry the missing topic', async () => (out.includes('does not exist') ? true : undefined), 20_000, 50);
      assert.equal(child.exitCode, null, out);
      await createServedTopics(admin, [{ topic: t, numPartitions: 1 }]);
      const got = (await read([t], N, 60_000)).sort((a, b) => a.offset - b.offset);
      assert.deepEqual(
        got.map((r) => Number(r.value)),
        Array.from({ length: N }, (_, i) => i + 1),
        'every message once, in order',
      );
      assert.equal(await exited, 0, out);
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
