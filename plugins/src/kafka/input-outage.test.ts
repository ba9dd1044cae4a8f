/**
 * The broker goes away for 10 s while the `kafka` input consumes (a cuttable proxy in front of
 * the broker's outage listener, for this client only): the input resumes by itself, no message
 * is lost, and the acked offsets end up committed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { END_OF_INPUT } from '@svc/engine';
import { serviceAddress, waitFor, TcpOutage } from '@svc/engine/testing';
import { KafkaFixture, connectInput, uid } from './input-test-support.js';

const kafka = new KafkaFixture();
before(() => kafka.start());
after(() => kafka.stop());

describe('kafka input broker outage (real broker)', { timeout: 120_000 }, () => {
  it('resumes after a 10 s outage without losing a message', async () => {
    const topic = await kafka.topic('outage', 2);
    const group = `g-${uid()}`;
    const proxy = new TcpOutage(
      { host: '127.0.0.1', port: Number(serviceAddress('SVC_KAFKA_OUTAGE_PORT')) },
      Number(serviceAddress('SVC_KAFKA_OUTAGE_PROXY_PORT')),
    );
    await proxy.start();
    const N = 3000;
    const seen = new Set<number>();
    let stopped = false;
    const { input } = await connectInput({
      addresses: [`127.0.0.1:${serviceAddress('SVC_KAFKA_OUTAGE_PROXY_PORT')}`],
      topics: [topic],
      consumer_group: group,
      commit_period: '200ms',
    });
    const reader = (async () => {
      while (!stopped) {
        const tx = await input.read();
        if (tx === END_OF_INPUT) return;
        for (const m of tx.batch) seen.add(Number(m.text().slice(3)));
        tx.ack();
      }
    })();
    try {
      await kafka.produceIds(topic, 0, N / 3);
      await waitFor('the first third', async () => (seen.size >= N / 3 ? true : undefined), 30_000, 20);
      proxy.cut(10_000);
      // Produced straight to the broker: messages keep arriving while this input cannot reach it.
      await kafka.produceIds(topic, N / 3, (2 * N) / 3);
      const during = seen.size;
      await waitFor('every message after the outage', async () => (seen.size === N ? true : undefined), 90_000, 100);
      assert.ok(during < N, 'the outage happened mid-stream');
      assert.ok(proxy.accepted > 1, 'the input reconnected through the proxy');
      const ends = await kafka.ends(topic);
      await waitFor(
        'the acked offsets committed',
        async () => {
          const c = await kafka.committed(group, topic);
          return [...ends].every(([p, end]) => c.get(p) === end) ? true : undefined;
        },
        30_000,
        200,
      );
    } finally {
      stopped = true;
      await input.close!();
      await reader;
      await proxy.stop();
    }
  });
});
