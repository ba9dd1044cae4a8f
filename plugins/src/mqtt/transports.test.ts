/**
 * MQTT over websockets (`ws://`) and TLS (`ssl://`, the `tls` block) against the second Mosquitto
 * that services.sh starts with a websocket listener and a TLS listener (one broker behind both):
 * what the output publishes over one transport, the input gets over the other, acknowledged at QoS 1
 * and 2; TLS is real (without the broker's CA the handshake fails, naming the broker, not the
 * password); the `mqtt` client watches over websockets as a second implementation.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import mqtt from 'mqtt';
import { Message } from '@svc/engine';
import { MQTT_TLS_CA, MQTT_TLS_URL, MQTT_WS_URL, buildInput, buildOutput, take, unique } from '../testing/mqtt.js';

const tls = { enabled: true, root_cas_file: MQTT_TLS_CA ?? '' };

describe('mqtt over websockets and TLS', () => {
  it('publishes over ws:// and reads over ssl:// with the tls block, both ways round', async () => {
    assert.ok(MQTT_TLS_CA, 'SVC_MQTT_TLS_CA: run scripts/services.sh up');
    const topic = unique('wstls');
    // The mqtt client subscribed over websockets too: another implementation sees the same messages.
    const watcher = await mqtt.connectAsync(MQTT_WS_URL, { reconnectPeriod: 0, connectTimeout: 5000 });
    const seen: string[] = [];
    watcher.on('message', (_t, p) => seen.push(p.toString()));
    await watcher.subscribeAsync(`${topic}/#`, { qos: 1 });

    const overTls = await buildInput({ urls: [MQTT_TLS_URL], tls, topics: [`${topic}/a`], qos: 2 });
    await overTls.connect!();
    const overWs = await buildOutput({ urls: [`${MQTT_WS_URL}/mqtt`], topic: `${topic}/a`, qos: 2 });
    await overWs.connect!();
    await overWs.write(Array.from({ length: 20 }, (_, i) => new Message(`ws-${i}`)));
    const a = await take(overTls, 20);
    assert.deepEqual(a.texts.sort(), Array.from({ length: 20 }, (_, i) => `ws-${i}`).sort());
    for (const t of a.txs) await t.ack();

    const overWsIn = await buildInput({ urls: [MQTT_WS_URL], topics: [`${topic}/b`], qos: 1 });
    await overWsIn.connect!();
    const overTlsOut = await buildOutput({ urls: [MQTT_TLS_URL], tls, topic: `${topic}/b`, qos: 1 });
    await overTlsOut.connect!();
    await overTlsOut.write([new Message('tls-0'), new Message('tls-1')]);
    const b = await take(overWsIn, 2);
    assert.deepEqual(b.texts.sort(), ['tls-0', 'tls-1']);
    assert.equal(b.meta.get('tls-0')!.mqtt_qos, 1);
    for (const t of b.txs) await t.ack();

    for (const c of [overWs, overTlsOut]) await c.close!();
    for (const c of [overTls, overWsIn]) await c.close!();
    await watcher.endAsync();
    assert.equal(seen.length, 22);
  });

  it('TLS is verified: without the broker CA the connection fails naming the broker, never the password', async () => {
    const port = new URL(MQTT_TLS_URL).port;
    const input = await buildInput({ urls: [`ssl://svc:hunter2@127.0.0.1:${port}`], tls: { enabled: true }, topics: ['x'] });
    await assert.rejects(input.connect!(), (err: Error) => {
      assert.equal(err.name, 'NotConnectedError');
      assert.match(err.message, new RegExp(`127.0.0.1:${port}: .*(self.signed|certificate)`, 'i'));
      assert.doesNotMatch(err.message, /hunter2/);
      return true;
    });
    // With the CA the same URL connects (the broker allows anonymous clients, so the credentials are just sent).
    const ok = await buildInput({ urls: [`ssl://svc:hunter2@127.0.0.1:${port}`], tls, topics: ['x'] });
    await ok.connect!();
    await ok.close!();
  });
});
