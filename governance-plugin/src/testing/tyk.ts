/**
 * A real Tyk Gateway (v5.14.0, built from source by the peers' set-up at /tmp/peers/bin/tyk; `TYK_BIN`
 * and `TYK_TEMPLATES` say otherwise) for the governance tests and bench: classic definitions and
 * policies as files, OAS definitions posted through its management API (Tyk reads those from its
 * app path only beside a classic one), on a loopback port, with the shared Redis (database
 * `TYK_REDIS_DB`, 13 by default). Absent binary: {@link tykBinary} is undefined and callers skip.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, serviceAddress, waitFor } from '@svc/engine/testing';
import { started, type Proc } from './processes.js';

const TYK_BIN = process.env.TYK_BIN || '/tmp/peers/bin/tyk';
const TYK_TEMPLATES = process.env.TYK_TEMPLATES || '/tmp/peers/tyk-templates';

/** The Tyk binary, or undefined (with why) when it is not built here. */
export function tykBinary(): string | undefined {
  return existsSync(TYK_BIN) ? TYK_BIN : undefined;
}

export const TYK_SKIP = `Tyk Gateway is not built at ${TYK_BIN} (set TYK_BIN, or build it with /work/shared/peers/build-tyk.sh): the Tyk part is skipped`;

export interface TykGateway {
  proc: Proc;
  port: number;
  url: string;
  secret: string;
  /** A management API call (`x-tyk-authorization`), JSON in and out. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Reloads the gateway and waits until it lists `apis` APIs. */
  reload(apis: number): Promise<void>;
}

/** A classic definition of a keyless API at `/{id}/`. */
export function tykClassic(id: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    api_id: id,
    name: `${id} API`,
    org_id: 'default',
    active: true,
    use_keyless: true,
    proxy: { listen_path: `/${id}/`, target_url: 'http://127.0.0.1:9/', strip_listen_path: true },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default' } } },
    ...more,
  };
}

/** An OAS definition (`x-tyk-api-gateway`) at `/{id}/`. */
export function tykOas(id: string, version = '1'): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title: `${id} API`, version },
    paths: {},
    'x-tyk-api-gateway': {
      info: { id, name: `${id} API`, state: { active: true } },
      upstream: { url: 'http://127.0.0.1:9/' },
      server: { listenPath: { value: `/${id}/`, strip: true } },
    },
  };
}

/** Starts Tyk in `dir` with `classic` definitions and `policies` as files, then posts `oas`. */
export async function startTyk(
  dir: string,
  defs: { classic?: Record<string, unknown>[]; oas?: Record<string, unknown>[]; policies?: Record<string, unknown>[] },
): Promise<TykGateway> {
  const bin = tykBinary();
  if (bin === undefined) throw new Error(TYK_SKIP);
  const apps = join(dir, 'tyk-apps');
  const policies = join(dir, 'tyk-policies');
  mkdirSync(apps, { recursive: true });
  mkdirSync(policies, { recursive: true });
  for (const d of defs.classic ?? []) writeFileSync(join(apps, `${String(d.api_id)}.json`), JSON.stringify(d));
  for (const p of defs.policies ?? []) writeFileSync(join(policies, `${String(p.id)}.json`), JSON.stringify(p));
  const port = await freePort();
  const redis = new URL(serviceAddress('SVC_REDIS_URL'));
  const secret = 'tyk-test-secret';
  const conf = join(dir, 'tyk.conf');
  writeFileSync(
    conf,
    JSON.stringify({
      listen_address: '127.0.0.1',
      listen_port: port,
      secret,
      app_path: apps,
      template_path: TYK_TEMPLATES,
      policies: { policy_source: 'file', policy_path: policies },
      storage: { type: 'redis', host: redis.hostname, port: Number(redis.port || 6379), database: Number(process.env.TYK_REDIS_DB || 13) },
      enable_analytics: false,
      log_level: 'error',
      hash_keys: true,
      use_db_app_configs: false,
    }),
  );
  const proc = started(bin, ['--conf', conf], { cwd: dir });
  const url = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-tyk-authorization': secret, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: r.status, body: parsed };
  };
  const listed = async (n: number) => {
    const r = await call('GET', '/tyk/apis').catch(() => undefined);
    return r?.status === 200 && Array.isArray(r.body) && r.body.length === n ? true : undefined;
  };
  const classicCount = defs.classic?.length ?? 0;
  await waitFor(`Tyk to list its ${classicCount} API(s)`, () => listed(classicCount), 120_000);
  const reload = async (n: number) => {
    await call('GET', '/tyk/reload/group');
    await waitFor(`Tyk to list ${n} API(s) after a reload`, () => listed(n), 60_000);
  };
  for (const d of defs.oas ?? []) {
    const r = await call('POST', '/tyk/apis/oas', d);
    if (r.status !== 200) throw new Error(`Tyk refused an OAS definition: ${r.status} ${JSON.stringify(r.body)}`);
  }
  if ((defs.oas ?? []).length > 0) await reload(classicCount + defs.oas!.length);
  return { proc, port, url, secret, call, reload };
}
