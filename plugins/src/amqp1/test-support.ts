/**
 * Test helpers for the amqp1 family (the `*.test.ts` files only): the real RabbitMQ of
 * `scripts/services.sh up` (its `rabbitmq_amqp1_0` plugin enabled, AMQP 1.0 on the AMQP port),
 * queues made, filled and read back with the amqp family's raw amqplib helpers, and the
 * `amqp_1` components built for a test.
 */
import { type Input, type Output } from '@svc/engine';
import { buildComponent, lintValue, testContext, type TestContext } from '@svc/engine/testing';
import { registry } from '@svc/engine';
import './index.js';

import { RABBITMQ_URL } from '../amqp/test-support.js';
import { loadRhea } from './connection.js';
import type { Message as AmqpMessage } from 'rhea';

export { RABBITMQ_URL, consumers, depth, distinctIn, fill, tempQueue, unique, urlOnPort } from '../amqp/test-support.js';

/** Receives (and accepts) `count` messages from `address` with a raw rhea receiver, as sent. */
export async function receiveRaw(address: string, count: number): Promise<AmqpMessage[]> {
  const rhea = await loadRhea();
  const u = new URL(RABBITMQ_URL);
  const conn = rhea.connect({
    host: u.hostname,
    port: Number(u.port || 5672),
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    reconnect: false,
  });
  const out: AmqpMessage[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`received ${out.length} of ${count} from ${address} in 10 s`)), 10_000);
      const r = conn.open_receiver({ source: { address }, credit_window: count });
      r.on('message', (ctx) => {
        if (ctx.message) out.push(ctx.message);
        if (out.length >= count) {
          clearTimeout(timer);
          resolve();
        }
      });
      conn.on('error', (err: unknown) => reject(err instanceof Error ? err : new Error(String(err))));
    });
  } finally {
    conn.close();
  }
  return out;
}

/** The RabbitMQ 3.x address of an existing queue. */
export function queueAddress(queue: string): string {
  return `/amq/queue/${queue}`;
}

export function context(path: string): TestContext {
  return testContext({ type: 'amqp_1', path });
}

export function buildInput(config: Record<string, unknown>, ctx: TestContext = context('root.input')): Promise<Input> {
  return buildComponent<Input>('input', 'amqp_1', config, ctx);
}

export function buildOutput(config: Record<string, unknown>, ctx: TestContext = context('root.output')): Promise<Output> {
  return buildComponent<Output>('output', 'amqp_1', config, ctx);
}

/** What lint says of an `amqp_1` input or output config. */
export function lint(kind: 'input' | 'output', config: Record<string, unknown>): string[] {
  return lintValue(registry().get(kind, 'amqp_1')!.spec.config, config);
}
