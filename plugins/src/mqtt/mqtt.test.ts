/**
 * The mqtt input and output against a real Mosquitto over loopback, watched and fed by the `mqtt`
 * client: a round trip with Benthos' metadata, retained messages, QoS 0/1/2 (what is acknowledged
 * when, what a persistent session gets again), clean sessions, the last will of a killed engine and
 * not of a stopped one, and the config errors refused at load.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message } from '@svc/engine';
import { EngineProcess, freePort, waitFor } from '@svc/engine/testing';
import { MQTT_URL, buildInput, buildOutput, client, collect, persistentSession, publishAll, take, unique } from '../testing/mqtt.js';

describe('mqtt output → broker → mqtt input', () => {
  it('publishes to the interpolated topic; the input reads the messages with their metadata', async () => {
    const base = unique('rt');
    const input = await buildInput({ topics: [`${base}/#`], qos: 2 });
    await input.connect!();
    const output = await buildOutput({ topic: `${base}/\${! meta("kind") }`, qos: 2 });
    await output.connect!();
    await output.write([new Message('{"a":1}', { kind: 'created' }), new Message('{"a":2}', { kind: 'deleted' })]);
    const got = await take(input, 2);
    assert.deepEqual(got.texts, ['{"a":1}', '{"a":2}']);
    const meta = got.meta.get('{"a":1}')!;
    assert.equal(meta.mqtt_topic, `${base}/created`);
    assert.equal(meta.mqtt_qos, 2);
    assert.equal(meta.mqtt_duplicate, false);
    assert.equal(meta.mqtt_retained, false);
    assert.equal(typeof meta.mqtt_message_id, 'number');
    assert.equal(got.meta.get('{"a":2}')!.mqtt_topic, `${base}/deleted`);
    for (const t of got.txs) await t.ack();
    await output.close!();
    await input.close!();
  });

  it('retained_interpolated decides per message; a later subscriber gets the retained one', async () => {
    const base = unique('retain');
    const output = await buildOutput({ topic: `${base}/\${! meta("k") }`, retained_interpolated: '${! meta("keep") }' });
    await output.connect!();
    await output.write([new Message('kept', { k: 'a', keep: 'true' }), new Message('not kept', { k: 'b', keep: 'false' })]);
    const input = await buildInput({ topics: [`${base}/+`] });
    await input.connect!();
    const got = await take(input, 1);
    assert.deepEqual(got.texts, ['kept']);
    assert.equal(got.meta.get('kept')!.mqtt_retained, true);
    for (const t of got.txs) await t.ack();
    await input.close!();
    // Clear the retained message.
    await output.write([new Message('', { k: 'a', keep: 'true' })]);
    await output.close!();
  });
});

describe('mqtt QoS', () => {
  it('QoS 0 out: delivered at QoS 0 (no acknowledgement to wait for)', async () => {
    const topic = unique('q0');
    const watcher = await client();
    const seen = await collect(watcher, topic, 2);
    const output = await buildOutput({ topic, qos: 0 });
    await output.connect!();
    await output.write([new Message('fire and forget')]);
    await waitFor('the QoS 0 message', async () => (seen.length > 0 ? true : undefined), 5000, 20);
    assert.equal(seen[0]!.qos, 0);
    await output.close!();
  });

  for (const qos of [1, 2] as const) {
    it(`QoS ${qos} in: a message is acknowledged only once acked; a persistent session gets an unacked one again, flagged duplicate`, async () => {
      const topic = unique(`q${qos}`);
      const clientId = unique('sess');
      const conf = { topics: [topic], qos, clean_session: false, client_id: clientId };
      await persistentSession(clientId, topic, qos);
      await publishAll(topic, 2, qos);
      const first = await buildInput(conf);
      await first.connect!();
      const once = await take(first, 2);
      assert.deepEqual(once.texts, ['{"id":0}', '{"id":1}']);
      assert.equal(once.meta.get('{"id":0}')!.mqtt_qos, qos);
      // Not acked. A second input with the same client id takes the session over (the broker drops
      // the first connection): the broker still owes both messages.
      const second = await buildInput(conf);
      await second.connect!();
      const again = await take(second, 2);
      assert.deepEqual(again.texts.sort(), ['{"id":0}', '{"id":1}']);
      assert.equal(again.meta.get('{"id":0}')!.mqtt_duplicate, true);
      for (const t of again.txs) await t.ack();
      // Acked now: a third takeover gets nothing old, only what is published next.
      const third = await buildInput(conf);
      await third.connect!();
      await publishAll(topic, 1, qos);
      const next = await take(third, 1);
      assert.deepEqual(next.texts, ['{"id":0}'], 'the new message (ids restart at 0)');
      assert.equal(next.meta.get('{"id":0}')!.mqtt_duplicate, false, 'a new message, not a redelivery');
      for (const t of next.txs) await t.ack();
      await third.close!();
      await first.close!();
      await second.close!();
    });
  }

  it('the broker downgrades to the subscription QoS: published at 2, read at 1', async () => {
    const topic = unique('down');
    const input = await buildInput({ topics: [topic], qos: 1 });
    await input.connect!();
    await publishAll(topic, 1, 2);
    const got = await take(input, 1);
    assert.equal(got.meta.get('{"id":0}')!.mqtt_qos, 1);
    for (const t of got.txs) await t.ack();
    await input.close!();
  });
});

describe('mqtt sessions', () => {
  it('clean_session: true forgets what came while away; false keeps it', async () => {
    const topic = unique('clean');
    const publisher = await client();
    for (const clean of [true, false]) {
      const conf = { topics: [topic], clean_session: clean, client_id: unique('c') };
      const input = await buildInput(conf);
      await input.connect!();
      await input.close!();
      await publisher.publishAsync(topic, `while away (${clean})`, { qos: 1 });
      const back = await buildInput(conf);
      await back.connect!();
      await publisher.publishAsync(topic, `after (${clean})`, { qos: 1 });
      const got = await take(back, 1);
      assert.equal(got.texts[0], clean ? 'after (true)' : 'while away (false)');
      for (const t of got.txs) await t.ack();
      await back.close!();
    }
  });
});

describe('mqtt will', () => {
  it('a killed engine leaves its will on the topic; a stopped one does not', async () => {
    const willTopic = unique('will');
    const watcher = await client();
    const seen = await collect(watcher, willTopic, 1);
    const yaml = `http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
  mqtt:
    urls: [ ${MQTT_URL} ]
    client_id: ${unique('w')}
    topics: [ ${unique('nothing')} ]
    will: { enabled: true, topic: ${willTopic}, payload: gone, qos: 1 }
output:
  drop: {}
`;
    const stopped = new EngineProcess(yaml);
    await waitFor('the engine subscribed', async () => (stopped.output().includes('Receiving MQTT messages') ? true : undefined), 30_000, 50);
    assert.equal(await stopped.stop(), 0, stopped.output().slice(-2000));
    const killed = new EngineProcess(yaml);
    await waitFor('the engine subscribed', async () => (killed.output().includes('Receiving MQTT messages') ? true : undefined), 30_000, 50);
    await killed.kill();
    await waitFor('the will', async () => (seen.length > 0 ? true : undefined), 10_000, 20);
    assert.equal(seen.length, 1, 'one will: the killed engine');
    assert.equal(seen[0]!.payload, 'gone');
  });
});

describe('mqtt config', () => {
  it('refuses at load what it does not accept, saying what to do', async () => {
    await assert.rejects(buildInput({ topics: ['x'], qos: 3 }), /qos must be 0, 1 or 2/);
    await assert.rejects(buildInput({ topics: [] }), /topics must list at least one topic filter/);
    await assert.rejects(buildInput({ topics: ['x'], will: { enabled: true } }), /include topic to register a last will/);
    await assert.rejects(buildOutput({ urls: ['http://127.0.0.1:1883'], topic: 'x' }), /not a tcp:\/\/, ssl:\/\/, ws:\/\/ or wss:\/\/ URL/);
    await assert.rejects(buildOutput({ topic: 'x', dynamic_client_id_suffix: 'uuid' }), /nanoid/);
    await assert.rejects(
      buildOutput({ urls: ['ws://127.0.0.1:9001'], topic: 'x', tls: { enabled: true } }),
      /ws:\/\/127.0.0.1:9001" is not an ssl:\/\/ or wss:\/\/ URL/,
    );
    await assert.rejects(buildOutput({ topic: 'x', tls: { enabled: true } }), /is not an ssl:\/\/ or wss:\/\/ URL .*use ssl:\/\/ or wss:\/\//);
  });

  it('a broker that is not there fails connect() with NotConnectedError naming it, and never prints the password', async () => {
    const port = await freePort();
    const input = await buildInput({ urls: [`tcp://svc:hunter2@127.0.0.1:${port}`], topics: ['x'] });
    await assert.rejects(input.connect!(), (err: Error) => {
      assert.equal(err.name, 'NotConnectedError');
      assert.match(err.message, new RegExp(`127.0.0.1:${port}`));
      assert.doesNotMatch(err.message, /hunter2/);
      return true;
    });
  });
});
