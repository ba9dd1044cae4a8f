/**
 * `kind: cluster` and `kind: failover` on the real servers `scripts/services.sh up` starts: a Redis
 * Cluster of three masters, and a master with one replica under a Sentinel. Every Redis component
 * (the rate limit too) works on both (keys spread over the cluster's three nodes); a Sentinel failover in the middle of
 * 1,000 writes, or of 1,000 reads from a stream, loses none.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createClient, createCluster } from '@redis/client';
import { END_OF_INPUT, Message, type Cache, type Input, type Output, type Processor, type RateLimit, type Transaction } from '@svc/engine';
import { buildComponent, serviceAddress, testContext, waitFor } from '@svc/engine/testing';
import './index.js';

const CLUSTER = serviceAddress('SVC_REDIS_CLUSTER_URLS');
const SENTINEL = serviceAddress('SVC_REDIS_SENTINEL_URL');
const MASTER = 'svc-master';
const run = randomUUID();

type Kind = { name: 'cluster' | 'failover'; fields: Record<string, unknown> };
const KINDS: Kind[] = [
  { name: 'cluster', fields: { url: CLUSTER, kind: 'cluster' } },
  { name: 'failover', fields: { url: SENTINEL, kind: 'failover', master: MASTER } },
];

const cluster = createCluster({ rootNodes: CLUSTER.split(',').map((url) => ({ url })) });
cluster.on('error', () => undefined);
const clusterReady = cluster.connect();

/** A plain client to the node the Sentinel names master now. */
function plain(url: string) {
  const c = createClient({ url });
  c.on('error', () => undefined);
  return c;
}

async function master(): Promise<ReturnType<typeof plain>> {
  const s = plain(SENTINEL);
  await s.connect();
  try {
    const [host, port] = (await s.sendCommand(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER])) as string[];
    const m = plain(`redis://${host}:${port}`);
    await m.connect();
    return m;
  } finally {
    await s.close();
  }
}

/** Runs a command where `kind` keeps its data, as a test client of its own. */
async function admin<T>(kind: Kind['name'], args: string[]): Promise<T> {
  if (kind === 'cluster') {
    await clusterReady;
    return (await cluster.sendCommand(args[1], false, args)) as T;
  }
  current ??= master();
  return (await (await current).sendCommand(args)) as T;
}
/** The test's connection to the master, until a failover. */
let current: ReturnType<typeof master> | undefined;

after(async () => {
  await clusterReady;
  for (const url of CLUSTER.split(',')) {
    const n = plain(url);
    await n.connect();
    for await (const keys of n.scanIterator({ MATCH: `svc-test:${run}:*`, COUNT: 1000 })) for (const one of keys) await n.del(one);
    await n.close();
  }
  if (current) await (await current).close();
  const m = await master();
  for await (const keys of m.scanIterator({ MATCH: `svc-test:${run}:*`, COUNT: 1000 })) if (keys.length > 0) await m.del(keys);
  await m.close();
  await cluster.close();
});

function key(name: string): string {
  return `svc-test:${run}:${name}:${randomUUID()}`;
}

function build<T>(kind: 'input' | 'output' | 'processor' | 'cache' | 'rate_limit', type: string, k: Kind, config: Record<string, unknown>): Promise<T> {
  return buildComponent<T>(kind, type, { ...k.fields, ...config }, testContext({ type, path: `root.${kind}` }));
}

async function readAll(input: Input, want: number): Promise<Message[]> {
  const got: Message[] = [];
  while (got.length < want) {
    const t = (await input.read()) as Transaction | typeof END_OF_INPUT;
    if (t === END_OF_INPUT) break;
    got.push(...t.batch);
    await t.ack();
  }
  return got;
}

/** How many keys of this run each cluster node holds. */
async function perNode(prefix: string): Promise<number[]> {
  const counts: number[] = [];
  for (const url of CLUSTER.split(',')) {
    const n = plain(url);
    await n.connect();
    let c = 0;
    for await (const keys of n.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) c += keys.length;
    await n.close();
    counts.push(c);
  }
  return counts;
}

for (const k of KINDS) {
  describe(`redis kind: ${k.name} (real ${k.name === 'cluster' ? 'Redis Cluster of three nodes' : 'Sentinel over a master and a replica'})`, () => {
    it('redis_list, redis_hash and redis_streams outputs write to keys in every slot; the list and streams inputs read them back', async () => {
      const prefix = `svc-test:${run}:spread-${k.name}:`;
      const out = await build<Output>('output', 'redis_list', k, { key: `${prefix}\${! meta("n") }` });
      const hash = await build<Output>('output', 'redis_hash', k, { key: `${prefix}h\${! meta("n") }`, walk_json_object: true });
      const stream = key('stream');
      const xadd = await build<Output>('output', 'redis_streams', k, { stream });
      try {
        const batch = Array.from({ length: 30 }, (_, n) => new Message(JSON.stringify({ n }), { n: String(n) }));
        await out.write(batch);
        await hash.write(batch);
        await xadd.write(batch);
        for (let n = 0; n < 30; n++) {
          assert.deepEqual(await admin(k.name, ['LRANGE', `${prefix}${n}`, '0', '-1']), [JSON.stringify({ n })]);
          assert.deepEqual(await admin(k.name, ['HGET', `${prefix}h${n}`, 'n']), String(n));
        }
        if (k.name === 'cluster') {
          const counts = await perNode(prefix);
          assert.ok(
            counts.every((c) => c > 0),
            `keys on every node: ${counts.join(', ')}`,
          );
        }
      } finally {
        await Promise.all([out.close?.(), hash.close?.(), xadd.close?.()]);
      }
      const list = await build<Input>('input', 'redis_list', k, { key: `${prefix}7`, timeout: '100ms' });
      const xread = await build<Input>('input', 'redis_streams', k, { streams: [stream], consumer_group: 'g', start_from_oldest: true, timeout: '100ms' });
      try {
        await list.connect?.();
        await xread.connect?.();
        assert.deepEqual(
          (await readAll(list, 1)).map((m) => m.content.toString()),
          ['{"n":7}'],
        );
        const read = await readAll(xread, 30);
        assert.deepEqual(
          read.map((m) => JSON.parse(m.content.toString()).n),
          Array.from({ length: 30 }, (_, n) => n),
        );
      } finally {
        await Promise.all([list.close?.(), xread.close?.()]);
      }
    });

    it('the rate limit counts in Redis: count 3 per 1 minute admits three accesses and makes the fourth wait, each key its own budget', async () => {
      const rl = await build<RateLimit>('rate_limit', 'redis', k, { key: key('rl'), count: 3, interval: '1m' });
      try {
        const waits = [];
        for (let i = 0; i < 4; i++) waits.push(await rl.access());
        assert.deepEqual(
          waits.map((w) => w > 0),
          [false, false, false, true],
        );
        for (let n = 0; n < 10; n++) assert.equal(await rl.access(`k${n}`), 0, 'another key, another budget');
      } finally {
        await rl.close?.();
      }
    });

    it('the cache sets and gets keys in every slot; the processor runs a command on each; pub/sub carries a message', async () => {
      const prefix = `svc-test:${run}:cache-${k.name}:`;
      const cache = await build<Cache>('cache', 'redis', k, { prefix });
      const proc = await build<Processor>('processor', 'redis', k, { command: 'incrby', args_mapping: `root = [ "${prefix}n" + this.n.string(), 5 ]` });
      const channel = key('chan');
      const sub = await build<Input>('input', 'redis_pubsub', k, { channels: [channel] });
      const pub = await build<Output>('output', 'redis_pubsub', k, { channel });
      try {
        for (let n = 0; n < 20; n++) await cache.set(`k${n}`, Buffer.from(`v${n}`));
        for (let n = 0; n < 20; n++) assert.equal((await cache.get(`k${n}`))?.toString(), `v${n}`);
        const out = (await proc.process(Array.from({ length: 20 }, (_, n) => new Message(JSON.stringify({ n }))))).flat();
        assert.deepEqual(
          out.map((m) => m.content.toString()),
          Array(20).fill('5'),
        );
        if (k.name === 'cluster') {
          const counts = await perNode(prefix);
          assert.ok(
            counts.every((c) => c > 0),
            `keys on every node: ${counts.join(', ')}`,
          );
        }
        await sub.connect?.();
        // A subscription starts asynchronously on the server: publish until one arrives.
        const got = sub.read() as Promise<Transaction>;
        await waitFor('a published message', async () => {
          await pub.write([new Message('hello')]);
          return (await Promise.race([got, new Promise((r) => setTimeout(r, 100))])) as Transaction | undefined;
        });
        assert.equal((await got).batch[0]!.content.toString(), 'hello');
      } finally {
        await Promise.all([cache.close?.(), proc.close?.(), sub.close?.(), pub.close?.()]);
      }
    });
  });
}

/** Where the Sentinel says the master is now. */
async function masterAddress(): Promise<string> {
  const s = plain(SENTINEL);
  await s.connect();
  try {
    return ((await s.sendCommand(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER])) as string[]).join(':');
  } finally {
    await s.close();
  }
}

/**
 * A planned failover: writes on the old master paused first (as Redis' own FAILOVER command does),
 * then the Sentinel asked until it names the other node, that node answering as master, and the old
 * master taken back as its replica before the pause ends. Sentinel replicates asynchronously: without
 * the pause, writes the old master acks after the promotion and before a client hears of it are
 * dropped by Redis when the old master becomes a replica, whatever the client.
 */
async function failover(): Promise<string> {
  if (current) await (await current).close();
  current = undefined;
  const before = await masterAddress();
  const old = plain(`redis://${before}`);
  const s = plain(SENTINEL);
  await Promise.all([old.connect(), s.connect()]);
  try {
    await old.sendCommand(['CLIENT', 'PAUSE', '60000', 'WRITE']);
    const now = await waitFor(
      'the Sentinel to name a new master',
      async () => {
        const at = await masterAddress();
        if (at !== before) return at;
        // Refused (INPROG) or aborted (no good replica yet, just after an earlier failover): ask again.
        await s.sendCommand(['SENTINEL', 'FAILOVER', MASTER]).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 1_000));
        return undefined;
      },
      90_000,
      0,
    );
    await waitFor(
      'the old master to be a replica',
      async () => (((await old.sendCommand(['ROLE'])) as unknown[])[0] === 'slave' ? true : undefined),
      60_000,
      200,
    );
    return now;
  } finally {
    await old.sendCommand(['CLIENT', 'UNPAUSE']).catch(() => undefined);
    await Promise.all([old.close(), s.close()]);
  }
}

describe('redis kind: failover across a Sentinel failover (real Sentinel)', () => {
  it('redis_list output: 1,000 messages written while the master changes, each batch retried until acked as the runtime does: none lost', async () => {
    const list = key('failover-out');
    const out = await build<Output>('output', 'redis_list', KINDS[1]!, { key: list });
    const sent = new Set<string>();
    let failed = 0;
    let moved: Promise<string> | undefined;
    let movedTo: string | undefined;
    try {
      const first = await masterAddress();
      // Writes go on until 1,000 are acked and the failover is over, then 100 more on the new master.
      for (let b = 0, after = 0; sent.size < 1_000 || movedTo === undefined || after < 10; b++) {
        if (sent.size >= 300 && !moved) moved = failover().then((m) => (movedTo = m));
        const ids = Array.from({ length: 10 }, (_, i) => `${b}-${i}`);
        for (;;) {
          try {
            await out.write(ids.map((id) => new Message(id)));
            break;
          } catch {
            failed++;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        for (const id of ids) sent.add(id);
        if (movedTo !== undefined) after++;
      }
      assert.notEqual(movedTo, first, 'the master changed');
      const m = plain(`redis://${movedTo}`);
      await m.connect();
      const stored = new Set((await m.sendCommand(['LRANGE', list, '0', '-1'])) as string[]);
      await m.close();
      const lost = [...sent].filter((id) => !stored.has(id));
      assert.deepEqual(lost, [], `${lost.length} of ${sent.size} acked messages missing on the new master (${failed} writes failed and were retried)`);
    } finally {
      await moved?.catch(() => undefined);
      await out.close?.();
    }
  });

  it('redis_streams input: 1,000 entries read and acked while the master changes: every one arrives', async () => {
    const stream = key('failover-in');
    const m = await master();
    for (let i = 0; i < 1_000; i += 100) {
      await m.sendCommand(['XADD', stream, '*', ...Array.from({ length: 1 }, () => ['body', String(i)]).flat()]);
      for (let j = i + 1; j < i + 100; j++) await m.sendCommand(['XADD', stream, '*', 'body', String(j)]);
    }
    // Every entry is on the replica before the test moves the master there.
    await m.sendCommand(['WAIT', '1', '5000']);
    await m.close();
    const input = await build<Input>('input', 'redis_streams', KINDS[1]!, {
      streams: [stream],
      consumer_group: 'g',
      start_from_oldest: true,
      timeout: '100ms',
    });
    const seen = new Set<string>();
    let moved: Promise<string> | undefined;
    let reads = 0;
    try {
      await waitFor(
        'every entry',
        async () => {
          if (seen.size >= 300 && !moved) moved = failover();
          try {
            await input.connect?.();
            const t = (await input.read()) as Transaction;
            reads += t.batch.length;
            for (const msg of t.batch) seen.add(msg.content.toString());
            await t.ack();
          } catch {
            await new Promise((r) => setTimeout(r, 50));
          }
          return seen.size >= 1_000 && moved !== undefined ? true : undefined;
        },
        120_000,
        0,
      );
      await moved;
      assert.equal(seen.size, 1_000, `read ${reads} (duplicates ${reads - seen.size})`);
    } finally {
      await moved?.catch(() => undefined);
      await input.close?.();
    }
  });
});
