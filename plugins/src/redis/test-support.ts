/**
 * Test helpers for the redis family (the `*.test.ts` files only): the real Redis that
 * `scripts/services.sh up` starts, reached with a raw @redis/client connection of the test's own;
 * key names no other test uses, deleted when the test file ends; components built from config.
 */
import { randomUUID } from 'node:crypto';
import { after } from 'node:test';
import { createClient, RESP_TYPES } from '@redis/client';
import type { Input, Output, Processor } from '@svc/engine';
import { buildComponent, serviceAddress, testContext, type TestContext } from '@svc/engine/testing';
import './index.js';

export const REDIS_URL = serviceAddress('SVC_REDIS_URL');

type Raw = { send<T = unknown>(args: Array<string | Buffer>): Promise<T> };
async function connectAdmin() {
  const client = createClient({ url: REDIS_URL });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}
let admin: ReturnType<typeof connectAdmin> | undefined;
const keys = new Set<string>();

/** The test's own connection: bulk strings as Buffers. */
export async function redis(): Promise<Raw> {
  const c = await (admin ??= connectAdmin());
  const typed = c.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
  return { send: <T>(args: Array<string | Buffer>) => typed.sendCommand(args as string[]) as Promise<T> };
}

after(async () => {
  if (!admin) return;
  const c = await admin;
  if (keys.size > 0) await c.sendCommand(['DEL', ...keys]).catch(() => undefined);
  await c.close().catch(() => undefined);
});

/** A key no other test uses; deleted when the file ends. */
export function tempKey(prefix: string): string {
  const k = `svc-test:${prefix}:${randomUUID()}`;
  keys.add(k);
  return k;
}

/** The elements of a list, as text. */
export async function listOf(key: string): Promise<string[]> {
  return (await (await redis()).send<Buffer[]>(['LRANGE', key, '0', '-1'])).map((b) => b.toString());
}

export function context(type: string, path = 'root.test'): TestContext {
  return testContext({ type, path });
}

export function buildInput(type: string, config: Record<string, unknown>, ctx = context(type, 'root.input')): Promise<Input> {
  return buildComponent<Input>('input', type, { url: REDIS_URL, ...config }, ctx);
}

export function buildOutput(type: string, config: Record<string, unknown>, ctx = context(type, 'root.output')): Promise<Output> {
  return buildComponent<Output>('output', type, { url: REDIS_URL, ...config }, ctx);
}

export function buildProcessor(config: Record<string, unknown>, ctx = context('redis', 'root.pipeline.processors.0')): Promise<Processor> {
  return buildComponent<Processor>('processor', 'redis', { url: REDIS_URL, ...config }, ctx);
}
