/**
 * The `logbus` output (also registered as `kafka`): writes each batch to Kafka with kafkajs and
 * resolves once the brokers acknowledged it (`ack_replicas`: all in-sync replicas, else the
 * leader). A batch goes out as one produce request per broker (several when it is larger than
 * `max_msg_bytes`), records grouped by topic. A failed request is retried here with `backoff`
 * up to `max_retries` / `backoff.max_elapsed_time`, then the write rejects and the transaction
 * is nacked back to its input: nothing is lost. A lost connection is reported as
 * NotConnectedError so the runtime reconnects and writes the same batch again.
 */
import {
  ErrorCode,
  NotConnectedError,
  SvcError,
  batchPolicySpec,
  compileInterpolation,
  compileMapping,
  errorMessage,
  f,
  maxInFlightField,
  parseDuration,
  registerOutput,
  scrubSecrets,
  type Batch,
  type ComponentContext,
  type Infer,
  type Logger,
  type Output,
} from '@svc/engine';
import { Backoff, sleep } from '@svc/engine/kit';
import type { KafkaConfig, Producer } from 'kafkajs';
import { clientFields, expandList, kafkaClient } from './client.js';
import { COMPRESSIONS, compressionType, registerCompressionCodecs } from './compression.js';
import { KafkaWriteError, describeKafkaError, isAuthFailure, isConnectionLoss, isPermanent, protocolType } from './output-errors.js';
import { buildChunks, staticHeaderBytes, staticPartitionProblem, type RecordChunk, type RecordTemplate } from './output-records.js';
import { PARTITIONERS, partitionerFor } from './partitioner.js';
import { TopicAdmin } from './topic-admin.js';
import { loadKafkajs } from './kafkajs.js';

const customTopicSpec = f
  .object({
    enabled: f.bool().default(false).describe('Whether to create topics that do not exist yet.'),
    partitions: f.int().default(-1).describe('Partitions of a created topic: -1 for the broker default, else at least 1.'),
    replication_factor: f
      .int()
      .default(-1)
      .describe('Replication factor of a created topic: -1 for the broker default, else an odd number not above the number of brokers.'),
  })
  // Checked only when enabled, as Benthos does: a disabled block may hold anything.
  .validate((c) => {
    if (c.enabled !== true) return undefined;
    const { partitions: p = -1, replication_factor: r = -1 } = c;
    if (p !== -1 && p < 1) return `custom_topic_creation.partitions must be -1 (the broker default) or at least 1, got ${p}`;
    if (r !== -1 && (r < 1 || r % 2 === 0)) return `custom_topic_creation.replication_factor must be -1 (the broker default) or an odd number, got ${r}`;
    return undefined;
  })
  .advanced()
  .describe('Create topics that do not exist, with these partitions and replication factor.');

const backoffSpec = f
  .object({
    initial_interval: f.duration().default('3s').describe('The wait before the first retry.'),
    max_interval: f.duration().default('10s').describe('The longest wait between retries.'),
    max_elapsed_time: f.duration().default('30s').describe('Give up retrying a write after this long; empty or 0: never give up.'),
  })
  .advanced()
  .describe('The waits between retries of a failed write (exponential, with jitter).');

export const kafkaOutputSpec = f
  .object({
    ...clientFields,
    topic: f.string().interpolated().describe('The topic to write to (interpolated per message).'),
    key: f.string().interpolated().default('').describe('The key of each record (interpolated); empty: no key.'),
    partitioner: f
      .enum(PARTITIONERS)
      .default('fnv1a_hash')
      .describe(
        'How records are spread over partitions: `fnv1a_hash` (of the key, as sarama), `murmur2_hash` (as the Java client), ' +
          '`random`, `round_robin`, or `manual` (`partition`). Records without a key go to a random partition with the hash partitioners.',
      ),
    partition: f
      .string()
      .interpolated()
      .default('')
      .validate(staticPartitionProblem)
      .advanced()
      .describe('With `partitioner: manual`: the partition of each record (interpolated; must parse as a 32-bit integer).'),
    custom_topic_creation: customTopicSpec,
    compression: f.enum(COMPRESSIONS).default('none').describe('The compression of record batches.'),
    static_headers: f.map(f.string()).default({}).describe('Headers added to every record, after the metadata headers.'),
    metadata: f
      .object({
        exclude_prefixes: f.array(f.string()).default([]).describe('Metadata keys with one of these prefixes are not sent.'),
      })
      .describe('Metadata is sent as record headers (structured values as JSON), except these.'),
    inject_tracing_map: f
      .mapping()
      .default('')
      .advanced()
      .describe(
        'A mapping that injects the trace context (`this`: traceparent, uber-trace-id) into the message, e.g. `meta = @.merge(this)`, before it is sent.',
      ),
    max_in_flight: maxInFlightField(64, 'The most batches written at once.'),
    idempotent_write: f
      .bool()
      .default(false)
      .advanced()
      .describe('Use the idempotent producer (needs IDEMPOTENT_WRITE on the cluster); implies acks from all replicas and one request in flight per broker.'),
    ack_replicas: f.bool().default(false).advanced().describe('Wait for all in-sync replicas to acknowledge (acks=all), not only the leader.'),
    max_msg_bytes: f
      .int()
      .default(1000000)
      .validate((n) => (n >= 1 ? undefined : 'max_msg_bytes must be at least 1'))
      .advanced()
      .describe('The largest record (value, key and headers) accepted; also the most bytes sent in one request.'),
    timeout: f.duration().default('5s').advanced().describe('How long the brokers may take to acknowledge a produce request.'),
    retry_as_batch: f
      .bool()
      .default(false)
      .advanced()
      .describe('Retry a failed request whole; otherwise only its topics that failed are sent again. Needed, with max_in_flight 1, for strict ordering.'),
    batching: batchPolicySpec,
    max_retries: f
      .int()
      .default(0)
      .validate((n) => (n >= 0 ? undefined : 'max_retries must be 0 (no limit) or more'))
      .advanced()
      .describe('Retries of a failed write before it is rejected; 0: no limit but `backoff.max_elapsed_time`.'),
    backoff: backoffSpec,
  })
  .validate((c) => {
    // Defaults may not be filled in yet when this runs (lintValue on a partial config).
    const partitioner = c.partitioner ?? 'fnv1a_hash';
    const partition = c.partition ?? '';
    if (partitioner === 'manual' && partition === '') return 'partitioner manual needs a partition';
    if (partitioner !== 'manual' && partition !== '') return `partition is only used with partitioner manual (partitioner is ${partitioner})`;
    return undefined;
  });

export type KafkaOutputConfig = Infer<typeof kafkaOutputSpec>;

/** kafkajs' own retries stay short: the output retries with the configured `backoff`. */
const CLIENT_RETRY = { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 };

export class KafkaOutput implements Output {
  private readonly name: string;
  private readonly log: Logger;
  private readonly template: RecordTemplate;
  private readonly staticBytes: number;
  private readonly acks: number;
  private readonly timeoutMs: number;
  private readonly backoff: { initialMs: number; maxMs: number; maxElapsedMs: number };
  private readonly secrets: string[];
  private producer: Producer | undefined;
  private topics: TopicAdmin | undefined;
  private disconnecting: Promise<void> | undefined;
  private readonly closing = new AbortController();

  constructor(
    private readonly conf: KafkaOutputConfig,
    ctx: ComponentContext,
    /** More kafkajs client options (the tests route the sockets through a proxy they can cut). */
    private readonly clientOptions: Partial<KafkaConfig> = {},
  ) {
    this.name = `${ctx.type} output ${ctx.path}`;
    this.log = ctx.logger;
    const statics = Object.keys(conf.static_headers).length > 0 ? conf.static_headers : undefined;
    let tracingWarned = false;
    this.template = {
      topic: compileInterpolation(conf.topic),
      key: conf.key === '' ? undefined : compileInterpolation(conf.key),
      partition: conf.partitioner === 'manual' ? compileInterpolation(conf.partition) : undefined,
      staticHeaders: statics,
      excludePrefixes: conf.metadata.exclude_prefixes,
      tracingMap: conf.inject_tracing_map.trim() === '' ? undefined : compileMapping(conf.inject_tracing_map),
      maxMessageBytes: conf.max_msg_bytes,
      component: this.name,
      onTracingError: (err) => {
        // Tracing never blocks delivery: the message goes without the injected fields.
        if (tracingWarned) return;
        tracingWarned = true;
        this.log.warn(`inject_tracing_map failed, sending without it: ${errorMessage(err)}`);
      },
    };
    this.staticBytes = staticHeaderBytes(statics);
    this.acks = conf.ack_replicas || conf.idempotent_write ? -1 : 1;
    this.timeoutMs = parseDuration(conf.timeout);
    this.backoff = {
      initialMs: parseDuration(conf.backoff.initial_interval),
      maxMs: parseDuration(conf.backoff.max_interval),
      maxElapsedMs: parseDuration(conf.backoff.max_elapsed_time),
    };
    this.secrets = [conf.sasl.password, conf.sasl.access_token].filter((s) => s !== '');
  }

  async connect(): Promise<void> {
    await this.disconnect();
    registerCompressionCodecs();
    const kafka = kafkaClient(this.conf, this.log, {
      // The socket-level wait must outlast the produce timeout the broker is given.
      requestTimeout: Math.max(30_000, this.timeoutMs + 5_000),
      retry: CLIENT_RETRY,
      ...this.clientOptions,
    });
    const idempotent = this.conf.idempotent_write;
    const producer = kafka.producer({
      createPartitioner: partitionerFor(this.conf.partitioner),
      idempotent,
      ...(idempotent ? { maxInFlightRequests: 1 } : {}),
      retry: CLIENT_RETRY,
    });
    const topics = new TopicAdmin(kafka, this.conf.custom_topic_creation, CLIENT_RETRY);
    try {
      await producer.connect();
      // A metadata request proves the connection: a listener that expects TLS or SASL accepts the
      // producer's first handshake and only hangs up on the first real request.
      const brokers = await topics.brokerCount();
      const creation = this.conf.custom_topic_creation;
      if (creation.enabled && creation.replication_factor > brokers) {
        throw new SvcError(
          ErrorCode.ConfigLint,
          `${this.name}: custom_topic_creation.replication_factor ${creation.replication_factor} is above the number of brokers (${brokers})`,
        );
      }
    } catch (err) {
      await Promise.allSettled([producer.disconnect(), topics.close()]);
      throw err instanceof SvcError ? err : this.connectError(err);
    }
    this.producer = producer;
    this.topics = topics;
  }

  private connectError(err: unknown): Error {
    const brokers = expandList(this.conf.addresses).join(', ');
    const what = describeKafkaError(err);
    let hint = 'check addresses, and tls and sasl: a broker that expects TLS or SASL may just drop the connection';
    if (isAuthFailure(err)) {
      const user = this.conf.sasl.user ? ` as user "${this.conf.sasl.user}"` : '';
      hint = `the brokers refused the SASL ${this.conf.sasl.mechanism} credentials${user}: check sasl.user and sasl.password (or sasl.access_token)`;
    }
    return new NotConnectedError(scrubSecrets(`${this.name}: cannot connect to the brokers (${brokers}): ${what}; ${hint}`, this.secrets), { cause: err });
  }

  async write(batch: Batch): Promise<void> {
    if (batch.length === 0) return;
    const producer = this.producer;
    const topics = this.topics;
    if (!producer || !topics) throw new NotConnectedError(`${this.name}: not connected`);
    const chunks = buildChunks(batch, this.template, this.staticBytes);
    for (const chunk of chunks) await this.deliver(producer, topics, chunk);
  }

  /**
   * Several batches (a line each, say) in the requests one batch of them all would take: the same
   * records in the same order, so a consumer cannot tell; per message, a produce request each
   * costs kafkajs ~10× the encoding of its record.
   */
  writeBatches(batch: Batch): Promise<void> {
    return this.write(batch);
  }

  /** Sends one request's records, retrying with `backoff`; rejects when the retries are spent. */
  private async deliver(producer: Producer, topics: TopicAdmin, chunk: RecordChunk): Promise<void> {
    const { initialMs, maxMs, maxElapsedMs } = this.backoff;
    const backoff = new Backoff(initialMs, maxMs);
    const started = Date.now();
    let pending = chunk;
    for (let retries = 0; ; retries++) {
      const { pending: left, failed } = await this.attempt(producer, topics, pending, retries === 0);
      if (failed === undefined) return;
      pending = left;
      const error = await this.explain(failed, producer, topics, pending);
      if (error instanceof NotConnectedError || error.permanent) throw error;
      if (this.conf.max_retries > 0 && retries >= this.conf.max_retries)
        throw this.givenUp(error, `after ${retries} ${retries === 1 ? 'retry' : 'retries'} (max_retries)`);
      const wait = backoff.next();
      if (maxElapsedMs > 0 && Date.now() - started + wait > maxElapsedMs) {
        throw this.givenUp(error, `after retrying for ${Date.now() - started}ms (backoff.max_elapsed_time is ${this.conf.backoff.max_elapsed_time})`);
      }
      this.log.warn(`${error.message}; retrying in ${wait}ms`);
      if (!(await sleep(wait, this.closing.signal))) throw this.givenUp(error, 'the output is closing');
    }
  }

  /**
   * One try: create missing topics (with `custom_topic_creation`), then send. The first try, and
   * every try with `retry_as_batch`, is one request; later tries send one request per topic, so
   * that the topics that went through are not sent again. Returns what is still pending.
   */
  private async attempt(producer: Producer, topics: TopicAdmin, pending: RecordChunk, first: boolean): Promise<{ pending: RecordChunk; failed?: unknown }> {
    if (this.conf.custom_topic_creation.enabled) {
      try {
        await topics.ensure(pending.map((t) => t.topic));
      } catch (err) {
        return { pending, failed: this.failure(err, pending, 'cannot create') };
      }
    }
    if (first || this.conf.retry_as_batch || pending.length === 1) {
      try {
        await this.send(producer, pending);
        return { pending: [] };
      } catch (err) {
        return { pending, failed: err };
      }
    }
    const results = await Promise.allSettled(pending.map((t) => this.send(producer, [t])));
    const still = pending.filter((_, i) => results[i]!.status === 'rejected');
    if (still.length === 0) return { pending: [] };
    return { pending: still, failed: (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason };
  }

  private send(producer: Producer, topicMessages: RecordChunk): Promise<unknown> {
    return producer.sendBatch({
      topicMessages,
      acks: this.acks,
      timeout: this.timeoutMs,
      compression: compressionType(this.conf.compression),
    });
  }

  /** The failure as the runtime should see it: a lost connection, or a write error in plain words. */
  private async explain(err: unknown, producer: Producer, topics: TopicAdmin, pending: RecordChunk): Promise<NotConnectedError | KafkaWriteError> {
    if (isConnectionLoss(err)) {
      this.markLost(producer);
      const text = `${this.name}: lost the connection to the brokers: ${describeKafkaError(err)} (if it keeps happening, check tls and sasl)`;
      return new NotConnectedError(scrubSecrets(text, this.secrets), { cause: err });
    }
    if (protocolType(err) === 'UNKNOWN_TOPIC_OR_PARTITION') {
      const missing = await topics.missing(pending.map((t) => t.topic)).catch(() => []);
      if (missing.length > 0) {
        const names = missing.map((t) => `"${t}"`).join(', ');
        if (this.conf.custom_topic_creation.enabled) {
          // Deleted since it was created: create it again before the next attempt.
          topics.forget(missing);
          return new KafkaWriteError(`${this.name}: topic ${names} no longer exists: it is created again before the next attempt`, false, { cause: err });
        }
        return new KafkaWriteError(`${this.name}: topic ${names} does not exist: create it, or enable custom_topic_creation`, false, { cause: err });
      }
    }
    return this.failure(err, pending);
  }

  private failure(err: unknown, pending: RecordChunk, what = 'failed to send'): KafkaWriteError {
    if (err instanceof KafkaWriteError) return err;
    const count = pending.reduce((n, t) => n + t.messages.length, 0);
    const names = [...new Set(pending.map((t) => t.topic))].join(', ');
    const subject = what === 'failed to send' ? `${count} message(s) to ${names}` : `topic ${names} for ${count} message(s)`;
    const text = `${this.name}: ${what} ${subject}: ${describeKafkaError(err)}`;
    return new KafkaWriteError(scrubSecrets(text, this.secrets), isPermanent(err), { cause: err });
  }

  private givenUp(err: KafkaWriteError, why: string): KafkaWriteError {
    return new KafkaWriteError(`${err.message}; gave up ${why}`, err.permanent, { cause: err.cause });
  }

  /** Drops the client after a lost connection (unless a reconnect replaced it already); `connect()` builds a new one. */
  private markLost(producer: Producer): void {
    if (this.producer === producer) void this.disconnect();
  }

  private disconnect(): Promise<void> {
    const producer = this.producer;
    const topics = this.topics;
    this.producer = undefined;
    this.topics = undefined;
    if (!producer && !topics) return this.disconnecting ?? Promise.resolve();
    const done: Promise<void> = Promise.allSettled([producer?.disconnect(), topics?.close()]).then(() => {
      if (this.disconnecting === done) this.disconnecting = undefined;
    });
    this.disconnecting = done;
    return done;
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.disconnect();
  }
}

const description = [
  'Writes each batch to Kafka and acknowledges it once the brokers did (`ack_replicas`: every in-sync replica, else',
  'the leader). `topic`, `key` and `partition` are interpolated per message; metadata is sent as record headers',
  '(structured values as JSON) except the keys with one of `metadata.exclude_prefixes`, then `static_headers`.',
  '',
  'A batch is sent as one produce request per broker, records grouped by topic, in requests of at most',
  '`max_msg_bytes`. A message above `max_msg_bytes` refuses the whole batch before anything is sent, naming the',
  'message and its size. A failed request is retried with `backoff` until `max_retries` or',
  '`backoff.max_elapsed_time`; then the write fails and the batch is nacked back to its input, never lost. A lost',
  'connection makes the stream reconnect and write the batch again.',
  '',
  'A topic must exist unless `custom_topic_creation.enabled`; a write to a missing one fails saying so.',
  '',
  'Each header costs the client encoding time (5-7 µs per header per record on the bench machine): when the records do not need',
  "the input's metadata, exclude it (a Kafka input's 15 keys: `metadata.exclude_prefixes: [ logbus_, kafka_ ]`;",
  'all of it: `[ "" ]`).',
  '',
  'Strict ordering: `max_in_flight: 1`, `retry_as_batch: true`, `max_retries: 0` and an empty',
  '`backoff.max_elapsed_time`: a failed batch is retried until it succeeds (back pressure), and no later batch',
  'overtakes it.',
].join('\n');

const examples = [
  `output:
  kafka:
    addresses: [ localhost:9092 ]
    topic: events-\${! meta("kind") }
    key: \${! json("id") }
    partitioner: murmur2_hash
    compression: zstd
    static_headers:
      source: svc
    metadata:
      exclude_prefixes: [ internal_ ]
    batching:
      count: 500
      period: 50ms`,
  `# Strict ordering: one batch at a time, retried whole until it is written.
output:
  logbus:
    addresses: [ localhost:9092 ]
    topic: ledger
    key: \${! json("account") }
    ack_replicas: true
    idempotent_write: true
    max_in_flight: 1
    retry_as_batch: true
    max_retries: 0
    backoff:
      max_elapsed_time: ""`,
];

for (const name of ['logbus', 'kafka']) {
  registerOutput(name, {
    summary: 'Writes messages to Kafka topics, acknowledging each batch once the brokers have it.',
    description,
    config: kafkaOutputSpec,
    examples,
    factory: async (conf, ctx) => {
      await loadKafkajs();
      return new KafkaOutput(conf, ctx);
    },
  });
}
