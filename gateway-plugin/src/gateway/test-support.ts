/**
 * Helpers of the gateway's tests: hand-made API definitions and gateway configs, free ports,
 * HTTP calls over loopback that read the whole answer.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import type { ApiSpec } from '../apis/api-spec.js';
import { createLogger, type ComponentContext } from '@svc/engine';
import type { GatewayConfig } from '../conf/gateway-config.js';
import type { ApiGatewayConfig } from './api-gateway-spec.js';
import { MemorySessionStore } from '../sessions/memory-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { Policy } from '../sessions/session.js';
import type { GatewaySource, LoadError } from '../kernel/gateway-source.js';
import * as shared from '../testing/fixtures.js';

export { freePort } from '@svc/engine/testing';

/** A keyless API on `listenPath` with everything else at its default. */
export function apiSpec(id: string, listenPath: string, more: Partial<ApiSpec> = {}): ApiSpec {
  return shared.apiSpec({
    id,
    listenPath,
    targetUrl: 'http://127.0.0.1:9/',
    disableRateLimit: true,
    definition: { api_id: id, name: id, proxy: { listen_path: listenPath } },
    ...more,
  });
}

/** A gateway config with Tyk's defaults, listening on 127.0.0.1:`port`. */
export function gatewayConfig(port: number, more: Partial<GatewayConfig> = {}): GatewayConfig {
  return shared.gatewayConfig({ listen_address: '127.0.0.1', listen_port: port, secret: 'test-secret', ...more });
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request over a fresh connection (no keep-alive): the whole answer, within 10 s (or `timeoutMs`). */
export function call(
  port: number,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number } = {},
): Promise<Reply> {
  const timeout = opts.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: opts.headers, agent: false, timeout }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${timeout / 1000} s`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

/**
 * Serves `server` on 127.0.0.1 for the test file: listening before its tests, closed (connections
 * cut) after them. `url()` is its base URL once listening.
 */
export function upstreamForFile(server: http.Server): { url: () => string } {
  let base = '';
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return { url: () => base };
}

/** Waits until `check` holds, up to `ms` (polling every 20 ms); throws with `what` when it never does. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A component context built by hand (no runtime): silent logger, no metrics export. */
export function componentContext(label = 'api_gateway'): ComponentContext {
  return {
    path: 'root.input',
    label,
    type: 'api_gateway',
    logger: createLogger({ level: 'OFF' }),
    resources: {
      get: () => assert.fail('no resources here'),
      has: () => false,
      rateLimit: () => assert.fail('no rate limits here'),
      hasRateLimit: () => false,
    },
    isWorker: false,
    sharedBuffer: (_k: string, n: number) => new SharedArrayBuffer(n),
    buildProcessors: () => assert.fail('not in these tests'),
    buildInput: () => assert.fail('not in these tests'),
    buildOutput: () => assert.fail('not in these tests'),
  };
}

/** A source of hand-made parts: APIs and policies it holds (a reload reads them again). */
export class FakeSource implements GatewaySource {
  apis: ApiSpec[];
  policies: Policy[] = [];
  parseErrors = new Map<string, string>();

  constructor(
    readonly config: GatewayConfig,
    apis: ApiSpec[],
  ) {
    this.apis = apis;
  }

  loadConfig(): Promise<{ config: GatewayConfig; warnings: string[] }> {
    return Promise.resolve({ config: this.config, warnings: [] });
  }

  loadApis(): Promise<{ apis: ApiSpec[]; errors: LoadError[] }> {
    return Promise.resolve({ apis: this.apis, errors: [] });
  }

  loadPolicies(): Promise<{ policies: Policy[]; errors: LoadError[] }> {
    return Promise.resolve({ policies: this.policies, errors: [] });
  }

  parseApi(def: unknown, format: 'classic' | 'oas'): Promise<ApiSpec> {
    if (format === 'oas') {
      const ext = (def as Record<string, { info?: { id?: string }; server?: { listenPath?: { value?: string } } }>)['x-svc-api-gateway'];
      const lp = ext?.server?.listenPath?.value;
      if (!lp) return Promise.reject(new Error('x-svc-api-gateway.server.listenPath.value: required'));
      return Promise.resolve(apiSpec(ext.info?.id ?? '', lp, { format: 'oas', definition: def }));
    }
    const d = def as { api_id?: string; proxy?: { listen_path?: string } };
    if (!d.proxy?.listen_path) return Promise.reject(new Error('proxy.listen_path: required'));
    return Promise.resolve(apiSpec(d.api_id ?? '', d.proxy.listen_path));
  }

  createSessions(): Promise<SessionStore> {
    return Promise.resolve(new MemorySessionStore());
  }
}

/** The `api_gateway` input's config for in-process tests: short bounds. */
export function inputConfig(more: Partial<ApiGatewayConfig> = {}): ApiGatewayConfig {
  return {
    conf: '/tmp/svc-test/svc.conf',
    max_body_size: 1024,
    body_timeout: '2s',
    headers_timeout: '1s',
    request_timeout: '10s',
    write_timeout: '0s',
    max_header_size: 16 * 1024,
    processes: 1,
    close_grace: '2s',
    ...more,
  };
}
