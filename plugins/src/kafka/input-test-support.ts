/**
 * Helpers for the `logbus` input's broker tests (the `input*.test.ts` files only): topics with
 * unique names created and deleted through the admin client, test data produced with a plain
 * kafkajs producer, committed offsets read back, and reading transactions with a deadline.
 */
import { randomBytes } from 'node:crypto';
import kafkajs, { type Admin, type Kafka, type Message as KafkaRecord, type Producer } from 'kafkajs';
import { END_OF_INPUT, type ComponentMetrics, type Gauge, type Input, type Transaction } from '@svc/engine';
import { buildComponent, serviceAddress, testContext, type TestContext } from '@svc/engine/testing';
import './input.js';
import { createServedTopics } from './topic-test-support.js';

export const BROKER = serviceAddress('SVC_KAFKA_BROKERS');
export const SASL_BROKER = serviceAddress('SVC_KAFKA_SASL_BROKERS');

export function uid(): string {
  return randomBytes(4).toString('hex');
}

/** The broker as the tests drive it: an admin client and a producer. */
export class KafkaFixture {
  readonly kafka: Kafka;
  readonly admin: Admin;
  private producer: Producer | undefined;
  private readonly topics: string[] = [];

  constructor() {
    this.kafka = new kafkajs.Kafka({ clientId: 'input-test', brokers: [BROKER], logLevel: kafkajs.logLevel.NOTHING });
    this.admin = this.kafka.admin();
  }

  async start(): Promise<void> {
    await this.admin.connect();
    this.producer = this.kafka.producer();
    await this.producer.connect();
  }

  /** A new topic with a unique name, served by the broker (see createServedTopics), deleted by stop(). */
  async topic(prefix: string, partitions = 1): Promise<string> {
    const t = `${prefix}-${uid()}`;
    this.topics.push(t);
    await createServedTopics(this.admin, [{ topic: t, numPartitions: partitions }]);
    return t;
  }

  async produce(topic: string, messages: KafkaRecord[]): Promise<void> {
    await this.producer!.send({ topic, messages, acks: -1 });
  }

  /** `count` messages valued `id-<n>` (from `from`), spread over partitions by key or put in `partition`. */
  async produceIds(topic: string, from: number, count: number, partition?: number): Promise<void> {
    const messages: KafkaRecord[] = [];
    for (let i = from; i < from + count; i++) messages.push({ key: `k${i}`, value: `id-${i}`, ...(partition === undefined ? {} : { partition }) });
    for (let i = 0; i < messages.length; i += 2000) await this.produce(topic, messages.slice(i, i + 2000));
  }

  /** Committed offsets of a group by partition (-1 when none). */
  async committed(group: string, topic: string): Promise<Map<number, number>> {
    const [t] = await this.admin.fetchOffsets({ groupId: group, topics: [topic] });
    return new Map((t?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
  }

  /** End offsets (high watermarks) by partition. */
  async ends(topic: string): Promise<Map<number, number>> {
    return new Map((await this.admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
  }

  async stop(): Promise<void> {
    await this.producer?.disconnect().catch(() => undefined);
    if (this.topics.length > 0) await this.admin.deleteTopics({ topics: this.topics }).catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
  }
}

/** Metrics that keep the last value of every gauge child, by `name{labels}`. */
export function recordingMetrics(): { metrics: ComponentMetrics; gauges: Map<string, number> } {
  const gauges = new Map<string, number>();
  const noop = { inc() {}, dec() {}, set() {}, observe() {}, start: () => () => {} };
  const family = (name: string, gauge: boolean) =>
    Object.assign(
      {
        labels: (...values: string[]): Gauge => ({
          set: (v: number) => void (gauge && gauges.set(`${name}{${values.join(',')}}`, v)),
          inc() {},
          dec() {},
        }),
      },
      noop,
    );
  const metrics = {
    counter: (name: string) => family(name, false),
    gauge: (name: string) => family(name, true),
    timer: (name: string) => family(name, false),
  } as unknown as ComponentMetrics;
  return { metrics, gauges };
}

export interface Built {
  input: Input;
  ctx: TestContext;
  gauges: Map<string, number>;
}

/** Builds the input (as `kafka`, defaults applied) with a recording logger and metrics, and connects it. */
export async function connectInput(config: Record<string, unknown>, connect = true): Promise<Built> {
  const { metrics, gauges } = recordingMetrics();
  const ctx = { ...testContext({ type: 'kafka', path: 'root.input' }), metrics };
  const input = await buildComponent<Input>('input', 'kafka', { addresses: [BROKER], commit_period: '100ms', ...config }, ctx);
  if (connect) await input.connect!();
  return { input, ctx, gauges };
}

/** One read, or undefined when nothing came within `ms`. */
export async function readWithin(input: Input, ms: number): Promise<Transaction | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const r = await Promise.race([Promise.resolve(input.read()), new Promise<undefined>((res) => (timer = setTimeout(() => res(undefined), ms)))]);
  clearTimeout(timer);
  if (r === END_OF_INPUT) throw new Error('the input ended');
  return r;
}

/** Reads transactions until they hold `n` messages; acks each (or hands it to `ack`), unless `ack` is false. */
export async function readMessages(
  input: Input,
  n: number,
  opts: { ack?: boolean | ((tx: Transaction) => void); timeoutMs?: number } = {},
): Promise<Transaction[]> {
  const out: Transaction[] = [];
  let count = 0;
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  while (count < n) {
    const left = deadline - Date.now();
    const tx = left > 0 ? await readWithin(input, left) : undefined;
    if (tx === undefined) throw new Error(`timed out: read ${count} of ${n} messages`);
    out.push(tx);
    count += tx.batch.length;
    if (typeof opts.ack === 'function') opts.ack(tx);
    else if (opts.ack !== false) tx.ack();
  }
  return out;
}

export function texts(txs: Transaction[]): string[] {
  return txs.flatMap((t) => t.batch.map((m) => m.text()));
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
