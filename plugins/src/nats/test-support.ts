/**
 * Test helpers for the nats family (the `*.test.ts` files only): the nats-server that
 * `scripts/services.sh up` starts (SVC_NATS_URL, JetStream on), reached with a raw `nats`
 * connection; streams with unique names, deleted when the test file ends.
 */
import { after } from 'node:test';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { type Input, type Output } from '@svc/engine';
import { buildComponent, serviceAddress, testContext } from '@svc/engine/testing';
import './index.js';

export const NATS_URL = serviceAddress('SVC_NATS_URL');

let conn: Promise<NatsConnection> | undefined;
const streams = new Set<string>();

/** The test file's own connection. */
export function nats(): Promise<NatsConnection> {
  return (conn ??= connect({ servers: NATS_URL }));
}

export async function manager(): Promise<JetStreamManager> {
  return (await nats()).jetstreamManager();
}

after(async () => {
  if (!conn) return;
  const nc = await conn;
  const jsm = await nc.jetstreamManager();
  for (const s of streams) await jsm.streams.delete(s).catch(() => undefined);
  await nc.close();
});

/** A name no other test uses (valid as a stream name and a subject token). */
export function unique(prefix: string): string {
  return `svc_${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

/** A stream capturing `<name>.>`; its name. Deleted at the end. */
export async function tempStream(prefix: string): Promise<string> {
  const name = unique(prefix);
  await (await manager()).streams.add({ name, subjects: [`${name}.>`] });
  streams.add(name);
  return name;
}

/** Publishes `count` messages `{"id":i}` to `subject`, awaiting the stream's acks 500 at a time. */
export async function publishAll(subject: string, count: number): Promise<void> {
  const js = (await nats()).jetstream();
  for (let i = 0; i < count; i += 500) {
    const acks = [];
    for (let j = i; j < Math.min(count, i + 500); j++) acks.push(js.publish(subject, Buffer.from(`{"id":${j}}`)));
    await Promise.all(acks);
  }
}

/** The messages stored in a stream now. */
export async function storedIn(stream: string): Promise<number> {
  return (await (await manager()).streams.info(stream)).state.messages;
}

/** Every message of a stream, read with an ordered consumer (no acks, no effect on other consumers). */
export async function readStream(stream: string): Promise<Buffer[]> {
  const total = await storedIn(stream);
  const out: Buffer[] = [];
  if (total === 0) return out;
  const consumer = await (await nats()).jetstream().consumers.get(stream);
  const messages = await consumer.consume();
  for await (const m of messages) {
    out.push(Buffer.from(m.data));
    if (out.length >= total) break;
  }
  messages.stop();
  return out;
}

export function buildInput(type: string, config: Record<string, unknown>): Promise<Input> {
  return buildComponent<Input>('input', type, { urls: [NATS_URL], ...config }, testContext({ type, path: 'root.input' }));
}

export function buildOutput(type: string, config: Record<string, unknown>): Promise<Output> {
  return buildComponent<Output>('output', type, { urls: [NATS_URL], ...config }, testContext({ type, path: 'root.output' }));
}
