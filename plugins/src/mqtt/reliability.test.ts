/**
 * At least once, end to end, against the real Mosquitto: the `engine` CLI moves 1,000 messages from
 * one topic to another (the input's persistent session at QoS 1, acknowledged after delivery; the
 * output at QoS 1) and is SIGKILLed mid-run, then restarted. Every message must arrive. MQTT has no
 * deduplication: what the output had delivered but the input not yet acknowledged at the kill comes
 * again, and only that — each second copy must be a redelivery the broker flagged (`mqtt_duplicate`,
 * which the pipeline copies into the message).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineProcess, waitFor } from '@svc/engine/testing';
import { MQTT_URL, client, collect, persistentSession, publishAll, unique } from '../testing/mqtt.js';

const TOTAL = 1000;

function pipeline(source: string, sink: string, clientId: string): EngineProcess {
  return new EngineProcess(`http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
  mqtt:
    urls: [ ${MQTT_URL} ]
    client_id: ${clientId}
    topics: [ ${source} ]
    qos: 1
    clean_session: false
pipeline:
  threads: 1
  processors:
    - mapping: |
        root = this
        root.dup = @mqtt_duplicate
    # Slow enough that the kill lands mid-run (about 5 s for the whole run): the input reads what
    # waits as one batch, so each message is slept on alone.
    - split: { size: 1 }
    - sleep: { duration: 5ms }
output:
  # Messages wait in the broker's batch, up to 50: acknowledged at the source before delivery, a kill would lose them.
  broker:
    batching: { count: 50, period: 500ms }
    outputs:
      - mqtt:
          urls: [ ${MQTT_URL} ]
          topic: ${sink}
          qos: 1
`);
}

describe('mqtt reliability (1,000 messages, SIGKILL mid-run, restart)', () => {
  it('none lost; a message comes twice only as a flagged redelivery of what was in flight at the kill', async (t) => {
    const source = unique('rel_src');
    const sink = unique('rel_sink');
    const clientId = unique('rel');
    // The engine's session exists (subscribed) before anything is published, as if it had run before.
    await persistentSession(clientId, source, 1);
    const watcher = await client({ clientId: unique('watch'), clean: false });
    const seen = await collect(watcher, sink, 1);
    await publishAll(source, TOTAL, 1);
    const first = pipeline(source, sink, clientId);
    let atKill: number;
    try {
      await waitFor('a fifth through', async () => (seen.length >= TOTAL / 5 ? true : undefined), 60_000, 10);
      await first.kill();
      atKill = seen.length;
    } finally {
      if (!first.done) await first.kill();
    }
    const distinct = () => new Set(seen.map((s) => (JSON.parse(s.payload) as { id: number }).id)).size;
    assert.ok(distinct() < TOTAL, `killed mid-run (${atKill} of ${TOTAL} through)`);
    const second = pipeline(source, sink, clientId);
    try {
      await waitFor('the rest through after the restart', async () => (distinct() >= TOTAL ? true : undefined), 120_000, 50);
      // Nothing more is owed: give a stray redelivery the time to (not) land.
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      if (!second.done) assert.equal(await second.stop(), 0, second.output().slice(-2000));
    }
    const copies = new Map<number, { dup: boolean }[]>();
    for (const s of seen) {
      const m = JSON.parse(s.payload) as { id: number; dup: boolean };
      copies.set(m.id, [...(copies.get(m.id) ?? []), m]);
    }
    assert.equal(copies.size, TOTAL, `${TOTAL - copies.size} lost`);
    let twice = 0;
    for (const [id, c] of copies) {
      if (c.length === 1) continue;
      twice += c.length - 1;
      assert.equal(c.length, 2, `message ${id} came ${c.length} times`);
      assert.ok(
        c.some((x) => x.dup),
        `message ${id} came twice without being a redelivery`,
      );
    }
    t.diagnostic(`killed with ${atKill} of ${TOTAL} through; ${twice} redelivered after the restart`);
  });
});
