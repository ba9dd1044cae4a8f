/**
 * Where the real servers started by `scripts/services.sh up` listen: the environment variables,
 * else what `up` wrote to .services/env, else the script's defaults.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ENV_FILE = fileURLToPath(new URL('../../../.services/env', import.meta.url));

const DEFAULTS: Record<string, string> = {
  SVC_PROMETHEUS_URL: 'http://127.0.0.1:19090',
  SVC_PUSHGATEWAY_URL: 'http://127.0.0.1:19091',
  SVC_METRICS_TARGET_ADDRESS: '127.0.0.1:19195',
  SVC_KAFKA_BROKERS: '127.0.0.1:9092',
  SVC_KAFKA_SASL_BROKERS: '127.0.0.1:9094',
  SVC_KAFKA_OUTAGE_PORT: '19094',
  SVC_KAFKA_OUTAGE_PROXY_PORT: '19095',
  SVC_RABBITMQ_URL: 'amqp://guest:guest@127.0.0.1:5672/',
  SVC_REDIS_URL: 'redis://127.0.0.1:6379',
  SVC_POSTGRES_URL: 'postgres://svc@127.0.0.1:15432/postgres',
  SVC_MOTO_URL: 'http://127.0.0.1:15000',
  SVC_NATS_URL: 'nats://127.0.0.1:14222',
  SVC_MYSQL_DSN: 'svc@tcp(127.0.0.1:13306)/svc',
  SVC_REDIS_CLUSTER_URLS: 'redis://127.0.0.1:17001,redis://127.0.0.1:17002,redis://127.0.0.1:17003',
  SVC_REDIS_SENTINEL_URL: 'redis://127.0.0.1:17020',
  SVC_NATS_NKEY_URL: 'nats://127.0.0.1:14223',
  SVC_NATS_NKEY_SEED_FILE: fileURLToPath(new URL('../../../.services/nats-nkey/user.nk', import.meta.url)),
};

function fromFile(): Record<string, string> {
  try {
    const out: Record<string, string> = {};
    for (const line of readFileSync(ENV_FILE, 'utf8').split('\n')) {
      const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
      if (m) out[m[1]!] = m[2]!;
    }
    return out;
  } catch {
    return {};
  }
}

export function serviceAddress(name: keyof typeof DEFAULTS | string): string {
  return process.env[name] ?? fromFile()[name] ?? DEFAULTS[name]!;
}

/** Polls `probe` every `everyMs` until it gives a value; rejects after `timeoutMs` saying what it waited for. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String((last as Error).message ?? last)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Fetches with a timeout, so that a test never hangs on a dead server. */
export function fetchWithin(url: string, init: RequestInit = {}, timeoutMs = 5_000): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
}
