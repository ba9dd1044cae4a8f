/**
 * Test helpers for the `nats_kv` components (the `*.test.ts` files only): buckets with unique
 * names on the nats-server of `scripts/services.sh up`, deleted when the test file ends, and
 * the components built for a test.
 */
import { after } from 'node:test';
import { connect, type KV } from 'nats';
import { registry, type Cache, type Input, type Output, type Processor } from '@svc/engine';
import { buildComponent, lintValue, testContext } from '@svc/engine/testing';
import { NATS_URL, nats, unique } from './test-support.js';

export { NATS_URL };

const buckets = new Set<string>();

after(async () => {
  if (buckets.size === 0) return;
  // A connection of its own: test-support's hook (registered first) has closed the shared one.
  const nc = await connect({ servers: NATS_URL });
  const jsm = await nc.jetstreamManager();
  for (const b of buckets) await jsm.streams.delete(`KV_${b}`).catch(() => undefined);
  await nc.close();
});

/** A new bucket (keeping `history` revisions per key); its name and handle. */
export async function tempBucket(prefix: string, history = 1): Promise<{ name: string; kv: KV }> {
  const name = unique(prefix);
  buckets.add(name);
  const kv = await (await nats()).jetstream().views.kv(name, { history });
  return { name, kv };
}

/** Puts `count` keys `k.<i>` with `{"id":i}`, 500 awaited at a time. */
export async function putAll(kv: KV, count: number): Promise<void> {
  for (let i = 0; i < count; i += 500) {
    const puts = [];
    for (let j = i; j < Math.min(count, i + 500); j++) puts.push(kv.put(`k.${j}`, Buffer.from(`{"id":${j}}`)));
    await Promise.all(puts);
  }
}

/** The keys of a bucket holding a value now. */
export async function keysOf(kv: KV): Promise<string[]> {
  const out: string[] = [];
  for await (const k of await kv.keys()) out.push(k);
  return out;
}

type Kind = 'input' | 'output' | 'processor' | 'cache';

export function build<T extends Input | Output | Processor | Cache>(kind: Kind, config: Record<string, unknown>): Promise<T> {
  return buildComponent<T>(kind, 'nats_kv', { urls: [NATS_URL], ...config }, testContext({ type: 'nats_kv', path: `root.${kind}` }));
}

/** What lint says of a `nats_kv` config. */
export function lint(kind: Kind, config: Record<string, unknown>): string[] {
  return lintValue(registry().get(kind, 'nats_kv')!.spec.config, config);
}
