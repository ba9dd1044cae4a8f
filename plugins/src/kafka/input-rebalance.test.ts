/**
 * Rebalances against the real broker: a second `kafka` input joining the group of a first one
 * (in this process) takes half the partitions; no message is lost, and once everything is acked
 * the group's committed offsets reach the end of every partition.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { END_OF_INPUT, type Input } from '@svc/engine';
import { waitFor } from '@svc/engine/testing';
import { KafkaFixture, connectInput, sleep, uid } from './input-test-support.js';

const kafka = new KafkaFixture();
before(() => kafka.start());
after(() => kafka.stop());

interface Seen {
  id: number;
  partition: number;
}

/** Reads until stopped, acking each transaction a little later (so some are in flight at any time). */
function drain(input: Input, seen: Seen[]): { stop: () => Promise<void> } {
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const tx = await input.read();
      if (tx === END_OF_INPUT) return;
      for (const m of tx.batch) seen.push({ id: Number(m.text().slice(3)), partition: m.getMeta('logbus_partition') as number });
      setTimeout(() => tx.ack(), 5);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await input.close!();
      await done;
    },
  };
}

describe('kafka input rebalance (real broker)', { timeout: 120_000 }, () => {
  it('a second member takes half the partitions; nothing is lost; acked offsets are committed', async () => {
    const topic = await kafka.topic('rebalance', 4);
    const group = `g-${uid()}`;
    const N = 4000;
    await kafka.produceIds(topic, 0, N / 2);
    const config = { topics: [topic], consumer_group: group, checkpoint_limit: 64, fetch_buffer_cap: 32 };
    const a = await connectInput(config);
    const seenA: Seen[] = [];
    const readerA = drain(a.input, seenA);
    await waitFor('the first member to read', async () => (seenA.length >= 200 ? true : undefined), 30_000, 20);

    const b = await connectInput(config);
    const seenB: Seen[] = [];
    const readerB = drain(b.input, seenB);
    // Both members consume after the rebalance: produce the second half then.
    const split = (lines: { msg: string }[]) => {
      const joins = lines.filter((l) => /Joined the consumer group/.test(l.msg));
      return joins.length > 0 && /consuming \S+:\d+,\d+$/.test(joins[joins.length - 1]!.msg);
    };
    await waitFor('both members to hold two partitions', async () => (split(a.ctx.logger.lines) && split(b.ctx.logger.lines) ? true : undefined), 30_000, 20);
    await kafka.produceIds(topic, N / 2, N / 2);
    try {
      await waitFor(
        'every message read by one member or the other',
        async () => (new Set([...seenA, ...seenB].map((s) => s.id)).size === N ? true : undefined),
        60_000,
        50,
      );
      const late = (seen: Seen[]) => new Set(seen.filter((s) => s.id >= N / 2).map((s) => s.partition));
      const pa = late(seenA);
      const pb = late(seenB);
      assert.equal(pa.size, 2, `the first member kept two partitions (${[...pa]})`);
      assert.equal(pb.size, 2, `the second member took two partitions (${[...pb]})`);
      assert.deepEqual([...pa, ...pb].sort(), [0, 1, 2, 3]);
      const ends = await kafka.ends(topic);
      await waitFor(
        'the committed offsets to reach the end of every partition',
        async () => {
          const c = await kafka.committed(group, topic);
          return [...ends].every(([p, end]) => c.get(p) === end) ? true : undefined;
        },
        15_000,
        100,
      );
      const rejoin = a.ctx.logger.lines.filter((l) => /Joined the consumer group/.test(l.msg));
      assert.ok(rejoin.length >= 2, 'the first member joined twice (before and after the second came)');
    } finally {
      await Promise.all([readerA.stop(), readerB.stop()]);
    }
  });

  it('when a member leaves, the other takes over its partitions from their committed offsets', async () => {
    const topic = await kafka.topic('leave', 4);
    const group = `g-${uid()}`;
    const N = 2000;
    await kafka.produceIds(topic, 0, N);
    const config = { topics: [topic], consumer_group: group, checkpoint_limit: 16, fetch_buffer_cap: 16 };
    const a = await connectInput(config);
    const b = await connectInput(config);
    const seenA: Seen[] = [];
    const seenB: Seen[] = [];
    const readerA = drain(a.input, seenA);
    const readerB = drain(b.input, seenB);
    try {
      await waitFor('both members to read', async () => (seenA.length > 50 && seenB.length > 50 ? true : undefined), 30_000, 10);
      await readerB.stop();
      await kafka.produceIds(topic, N, N);
      await waitFor('every message read', async () => (new Set([...seenA, ...seenB].map((s) => s.id)).size === 2 * N ? true : undefined), 60_000, 50);
      assert.deepEqual(new Set(seenA.filter((s) => s.id >= N).map((s) => s.partition)), new Set([0, 1, 2, 3]), 'the remaining member has them all');
    } finally {
      await readerA.stop();
    }
    await sleep(0);
  });
});
