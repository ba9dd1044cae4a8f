/**
 * Test helpers for the auth family: an API, a gateway state registered on this thread, a gateway
 * request message, and running `gateway_auth` on it to read the answer.
 */
import { randomUUID } from 'node:crypto';
import { Message, ResultStore, isAnswered, type Answer } from '@svc/engine';
import type { ApiSpec } from '../apis/api-spec.js';
import type { GatewayConfig } from '../conf/gateway-config.js';
import { GATEWAY_REQUEST, type GatewayRequest } from '../kernel/request.js';
import { GatewayState, registerGatewayState } from '../kernel/state.js';
import { MemorySessionStore } from '../sessions/memory-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { Policy } from '../sessions/session.js';
import { GatewayAuth } from './gateway-auth.js';
import { apiSpec, gatewayConfig } from '../testing/fixtures.js';

export { gatewayConfig, jwtSettings } from '../testing/fixtures.js';

export function api(over: Partial<ApiSpec> & { id: string }): ApiSpec {
  return apiSpec({ orgId: 'org1', keyless: false, standardAuth: true, ...over });
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
