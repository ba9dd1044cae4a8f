/**
 * Test helpers for the auth family: an API, a gateway state registered on this thread, a gateway
 * request message, and running `gateway_auth` on it to read the answer.
 */
import { randomUUID } from 'node:crypto';
import { Message, ResultStore, isAnswered, type Answer } from '@svc/engine';
import type { ApiSpec, JwtSettings } from '../apis/api-spec.js';
import type { GatewayConfig } from '../conf/gateway-config.js';
import { GATEWAY_REQUEST, type GatewayRequest } from '../gateway/request.js';
import { GatewayState, registerGatewayState } from '../gateway/state.js';
import { MemorySessionStore } from '../sessions/memory-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { Policy } from '../sessions/session.js';
import { GatewayAuth } from './gateway-auth.js';

export function api(over: Partial<ApiSpec> & { id: string }): ApiSpec {
  return {
    name: over.id,
    orgId: 'org1',
    active: true,
    format: 'classic',
    definition: {},
    listenPath: `/${over.id}/`,
    stripListenPath: true,
    targetUrl: 'http://127.0.0.1:1',
    keyless: false,
    standardAuth: true,
    credential: { header: 'Authorization', query: '', cookie: '' },
    stripAuthData: false,
    globalRateLimit: { rate: 0, per: 0 },
    disableRateLimit: false,
    endpointRateLimits: [],
    urlRewrites: [],
    splitToken: [],
    ...over,
  };
}

export function jwtSettings(over: Partial<JwtSettings> = {}): JwtSettings {
  return {
    signingMethod: 'hmac',
    source: '',
    identityBaseField: 'sub',
    policyFieldName: 'pol',
    defaultPolicies: [],
    scopeClaimName: 'scope',
    scopeToPolicy: {},
    issuedAtSkew: 0,
    expiresAtSkew: 0,
    notBeforeSkew: 0,
    ...over,
  };
}

export function gatewayConfig(over: Partial<GatewayConfig> = {}): GatewayConfig {
  return {
    listen_address: '',
    listen_port: 8080,
    secret: 's',
    node_secret: '',
    control_api_port: 0,
    app_path: '',
    policies: { policy_source: 'file', policy_record_name: '', policy_path: '', policy_connection_string: '' },
    hash_keys: false,
    hash_key_function: '',
    enable_shared_store_rolling_limiter: false,
    enable_sentinel_rate_limiter: false,
    enable_non_transactional_rate_limiter: false,
    enable_fixed_window_rate_limiter: false,
    drl_threshold: 0,
    secrets: {},
    kv: {},
    baseDir: '.',
    ...over,
  };
}

/** A state under a fresh name, registered on this thread. */
export function makeState(
  apis: ApiSpec[],
  policies: Policy[] = [],
  config: Partial<GatewayConfig> = {},
  sessions: SessionStore = new MemorySessionStore(),
): GatewayState {
  const state = new GatewayState({ name: `gw-${randomUUID()}`, config: gatewayConfig(config), apis, policies, sessions });
  registerGatewayState(state);
  return state;
}

export interface RequestInit {
  method?: string;
  path?: string;
  query?: string;
  headers?: Record<string, string>;
  body?: string;
}

export function gatewayMessage(state: GatewayState, a: ApiSpec, init: RequestInit = {}): Message {
  const msg = new Message(Buffer.from(init.body ?? ''));
  const req: GatewayRequest = {
    gateway: state.name,
    version: state.version,
    apiId: a.id,
    method: init.method ?? 'GET',
    path: init.path ?? `${a.listenPath}anything`,
    upstreamPath: '/anything',
    query: init.query ?? '',
    headers: Object.fromEntries(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    remoteAddress: '127.0.0.1',
    tls: false,
  };
  msg.ctx.set(GATEWAY_REQUEST, req);
  return msg;
}

export interface Outcome {
  /** The answer when the request was refused (or answered, as a split token is). */
  answer?: Answer & { text: string };
  req: GatewayRequest;
}

const auth = new GatewayAuth();

export async function run(state: GatewayState, a: ApiSpec, init: RequestInit = {}): Promise<Outcome> {
  const msg = gatewayMessage(state, a, init);
  const store = new ResultStore<Answer>([msg]);
  await auth.process([msg]);
  const req = msg.ctx.get(GATEWAY_REQUEST)!;
  if (!isAnswered(msg)) return { req };
  const answer = store.results()[0]!;
  return { req, answer: { ...answer, text: Buffer.from(answer.body ?? []).toString('utf8') } };
}

/** Tyk's error body for `message`. */
export const tykBody = (message: string): string => `{\n    "error": "${message}"\n}`;
