/**
 * Test helpers for the amqp family (the `*.test.ts` files only): the real RabbitMQ that
 * `scripts/services.sh up` starts, reached with a raw amqplib connection; unique queue and
 * exchange names that are deleted when the test file ends; publishing with confirms in batches;
 * reading a queue back.
 */
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import amqplib, { type Channel, type ChannelModel, type ConfirmChannel, type GetMessage, type Options } from 'amqplib';
import { type Input, type Output } from '@svc/engine';
import { buildComponent, serviceAddress, testContext, type TestContext } from '@svc/engine/testing';
import './index.js';

/** The broker's URL (with the guest password). */
export const RABBITMQ_URL = serviceAddress('SVC_RABBITMQ_URL');

/** The module that registers the amqp components, for `engine --plugin` (until @svc/plugins imports it). */
export const AMQP_PLUGIN = fileURLToPath(new URL('./index.js', import.meta.url));

/** The broker's host and port, for a TcpOutage in front of it. */
export function brokerTarget(): { host: string; port: number } {
  const u = new URL(RABBITMQ_URL);
  return { host: u.hostname, port: Number(u.port || 5672) };
}

/** RABBITMQ_URL pointed at another port on loopback (a proxy, or nothing). */
export function urlOnPort(port: number): string {
  const u = new URL(RABBITMQ_URL);
  u.port = String(port);
  return u.toString();
}

let admin: Promise<{ model: ChannelModel; channel: ConfirmChannel }> | undefined;
const queues = new Set<string>();
const exchanges = new Set<string>();

/** One raw connection for the test file (its own side of the broker: filling, checking, cleaning). */
export function broker(): Promise<{ model: ChannelModel; channel: ConfirmChannel }> {
  return (admin ??= (async () => {
    const model = await amqplib.connect(RABBITMQ_URL);
    model.on('error', () => undefined);
    const channel = await model.createConfirmChannel();
    channel.on('error', () => undefined);
    return { model, channel };
  })());
}

/** A fresh channel on the test's connection (a channel the broker closed on error stays closed). */
export async function freshChannel(): Promise<Channel> {
  const { model } = await broker();
  const ch = await model.createChannel();
  ch.on('error', () => undefined);
  return ch;
}

after(async () => {
  if (!admin) return;
  const { model } = await admin;
  const ch = await model.createChannel();
  ch.on('error', () => undefined);
  for (const q of queues) await ch.deleteQueue(q).catch(() => undefined);
  for (const e of exchanges) await ch.deleteExchange(e).catch(() => undefined);
  await model.close().catch(() => undefined);
});

/** A name no other test uses; deleted (as a queue and as an exchange) when the file ends. */
export function unique(prefix: string): string {
  return `svc-test-${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Declares a (non-durable) queue with a unique name; deleted at the end. */
export async function tempQueue(prefix: string, options: Options.AssertQueue = { durable: false }): Promise<string> {
  const name = unique(prefix);
  queues.add(name);
  await (await broker()).channel.assertQueue(name, options);
  return name;
}

/** Remembers a queue declared elsewhere (by the component under test), to delete it at the end. */
export function forgetLater(kind: 'queue' | 'exchange', name: string): void {
  (kind === 'queue' ? queues : exchanges).add(name);
}

/** Declares an exchange with a unique name; deleted at the end. */
export async function tempExchange(prefix: string, type = 'direct'): Promise<string> {
  const name = unique(prefix);
  exchanges.add(name);
  await (await broker()).channel.assertExchange(name, type, { durable: false, autoDelete: false });
  return name;
}

/**
 * Publishes `count` messages to `queue` (through the default exchange), `body(i)` each, in
 * batches of 5000 awaiting the broker's confirms.
 */
export async function fill(
  queue: string,
  count: number,
  body: (i: number) => string | Buffer = (i) => `{"id":${i}}`,
  options: Options.Publish = {},
): Promise<void> {
  const { channel } = await broker();
  for (let i = 0; i < count; i += 5000) {
    for (let j = i; j < Math.min(count, i + 5000); j++) {
      const b = body(j);
      channel.sendToQueue(queue, typeof b === 'string' ? Buffer.from(b) : b, options);
    }
    await channel.waitForConfirms();
  }
}

/** Messages ready in a queue (not counting those delivered and unacked). */
export async function depth(queue: string): Promise<number> {
  const ch = await freshChannel();
  try {
    return (await ch.checkQueue(queue)).messageCount;
  } finally {
    await ch.close().catch(() => undefined);
  }
}

/** Consumers attached to a queue now (0 once a killed client's connection is gone and what it held unacked is back). */
export async function consumers(queue: string): Promise<number> {
  const ch = await freshChannel();
  try {
    return (await ch.checkQueue(queue)).consumerCount;
  } finally {
    await ch.close().catch(() => undefined);
  }
}

/** Takes every message now in `queue` (acking them), in order. */
export async function takeAll(queue: string): Promise<GetMessage[]> {
  const ch = await freshChannel();
  const out: GetMessage[] = [];
  try {
    for (;;) {
      const m = await ch.get(queue, { noAck: true });
      if (m === false) return out;
      out.push(m);
    }
  } finally {
    await ch.close().catch(() => undefined);
  }
}

/**
 * Consumes the whole of a big queue quickly, returning the distinct values `key` finds in the
 * bodies and the total count.
 */
export async function distinctIn(
  queue: string,
  key: (body: Buffer) => string | number = (b) => (JSON.parse(b.toString()) as { id: number }).id,
): Promise<{ distinct: Set<string | number>; total: number }> {
  const expected = await depth(queue);
  const { model } = await broker();
  const ch = await model.createChannel();
  ch.on('error', () => undefined);
  const distinct = new Set<string | number>();
  let total = 0;
  await new Promise<void>((resolve, reject) => {
    if (expected === 0) return resolve();
    const timer = setTimeout(() => reject(new Error(`read ${total} of ${expected} messages of ${queue} in 60 s`)), 60_000);
    void ch.consume(
      queue,
      (m) => {
        if (!m) return;
        distinct.add(key(m.content));
        if (++total === expected) {
          clearTimeout(timer);
          resolve();
        }
      },
      { noAck: true },
    );
  });
  await ch.close().catch(() => undefined);
  return { distinct, total };
}

/** A context for a component under test, its log lines recorded. */
export function context(type = 'amqp_0_9', path = 'root.input'): TestContext {
  return testContext({ type, path });
}

export function buildInput(config: unknown, ctx: TestContext = context('amqp_0_9', 'root.input')): Promise<Input> {
  return buildComponent<Input>('input', 'amqp_0_9', config, ctx);
}

export function buildOutput(config: unknown, ctx: TestContext = context('amqp_0_9', 'root.output')): Promise<Output> {
  return buildComponent<Output>('output', 'amqp_0_9', config, ctx);
}

/** A promise that settles within `ms`, or `'pending'`. */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const r = await Promise.race([p, new Promise<'pending'>((r) => (timer = setTimeout(() => r('pending'), ms)))]);
  clearTimeout(timer);
  return r;
}
