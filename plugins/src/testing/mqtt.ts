/**
 * Test helpers for the mqtt family (the `*.test.ts` files only): the Mosquitto that
 * `scripts/services.sh up` starts (SVC_MQTT_URL), watched and fed with the `mqtt` client (another
 * implementation than ours); topics and client ids unique to the test.
 */
import { after } from 'node:test';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { type Input, type Output, type Transaction } from '@svc/engine';
import { buildComponent, serviceAddress, testContext } from '@svc/engine/testing';
import '../mqtt/index.js';

/** Where the broker listens (services.sh's default when .services/env predates it). */
export const MQTT_URL = (serviceAddress('SVC_MQTT_URL') as string | undefined) ?? 'tcp://127.0.0.1:11883';

const clients = new Set<MqttClient>();
after(async () => {
  for (const c of clients) await c.endAsync(true).catch(() => undefined);
});

/** A name no other test uses (a topic level or a client id). */
export function unique(prefix: string): string {
  return `svc_${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

/** A connected `mqtt` client (closed when the file ends). */
export async function client(opts: IClientOptions = {}): Promise<MqttClient> {
  const c = await mqtt.connectAsync(MQTT_URL, { reconnectPeriod: 0, connectTimeout: 5000, ...opts });
  clients.add(c);
  return c;
}

export interface Seen {
  topic: string;
  payload: string;
  qos: number;
  retain: boolean;
  dup: boolean;
}

/** Subscribes `c` to `topic`; every message it gets from then on. */
export async function collect(c: MqttClient, topic: string, qos: 0 | 1 | 2 = 1): Promise<Seen[]> {
  const seen: Seen[] = [];
  c.on('message', (t, payload, packet) => seen.push({ topic: t, payload: payload.toString(), qos: packet.qos, retain: packet.retain, dup: packet.dup }));
  await c.subscribeAsync(topic, { qos });
  return seen;
}

/** Creates the persistent session `clientId` subscribed to `topic`, then leaves it: the broker keeps what comes for it. */
export async function persistentSession(clientId: string, topic: string, qos: 0 | 1 | 2): Promise<void> {
  const c = await mqtt.connectAsync(MQTT_URL, { clientId, clean: false, reconnectPeriod: 0 });
  await c.subscribeAsync(topic, { qos });
  await c.endAsync();
}

/** Publishes `count` messages `{"id":i}` to `topic` at `qos`, 200 awaited at a time. */
export async function publishAll(topic: string, count: number, qos: 0 | 1 | 2 = 1): Promise<void> {
  const c = await client();
  for (let i = 0; i < count; i += 200) {
    const sends = [];
    for (let j = i; j < Math.min(count, i + 200); j++) sends.push(c.publishAsync(topic, `{"id":${j}}`, { qos }));
    await Promise.all(sends);
  }
}

/** Reads transactions until `n` messages came (failing after 10 s without one); they and their transactions. */
export async function take(
  input: Input,
  n: number,
): Promise<{ txs: Transaction[]; texts: string[]; txOf: Map<string, Transaction>; meta: Map<string, Record<string, unknown>> }> {
  const txs: Transaction[] = [];
  const texts: string[] = [];
  const txOf = new Map<string, Transaction>();
  const meta = new Map<string, Record<string, unknown>>();
  while (texts.length < n) {
    let timer: NodeJS.Timeout | undefined;
    const t = await Promise.race([
      input.read(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no message within 10 s (${texts.length} of ${n} came)`)), 10_000))),
    ]).finally(() => clearTimeout(timer));
    if (typeof t !== 'object' || !('batch' in t)) throw new Error('the input ended');
    txs.push(t);
    for (const m of t.batch) {
      texts.push(m.text());
      txOf.set(m.text(), t);
      meta.set(m.text(), Object.fromEntries(m.metaEntries()));
    }
  }
  return { txs, texts, txOf, meta };
}

export function buildInput(config: Record<string, unknown>): Promise<Input> {
  return buildComponent<Input>('input', 'mqtt', { urls: [MQTT_URL], ...config }, testContext({ type: 'mqtt', path: 'root.input' }));
}

export function buildOutput(config: Record<string, unknown>): Promise<Output> {
  return buildComponent<Output>('output', 'mqtt', { urls: [MQTT_URL], ...config }, testContext({ type: 'mqtt', path: 'root.output' }));
}

/** The second Mosquitto's websocket and TLS listeners (services.sh's mosquitto_wstls_up), and the CA of its certificate. */
export const MQTT_WS_URL = serviceAddress('SVC_MQTT_WS_URL') ?? 'ws://127.0.0.1:11884';
export const MQTT_TLS_URL = serviceAddress('SVC_MQTT_TLS_URL') ?? 'ssl://127.0.0.1:11885';
export const MQTT_TLS_CA = serviceAddress('SVC_MQTT_TLS_CA') as string | undefined;
