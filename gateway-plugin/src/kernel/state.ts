/**
 * A gateway's state: its config, its APIs, its policies and its session store, under a version
 * that grows with every change (a reload). The `api_gateway` input owns the state on the main
 * thread, where every gateway processor runs (they are `mainThread` components); processors find
 * it by name with {@link gatewayState}. A gateway scales out by processes (`processes`), each with
 * its own state: what they must share (sessions in memory, reloads, in-memory limits) goes through
 * the primary (see `sessions/process-store.ts`, `ratelimit/shared-table.ts`).
 */
import type { GatewayRequest } from './request.js';
import type { ApiSpec } from '../apis/api-spec.js';
import type { PathMatching } from '../apis/endpoints.js';
import type { GatewayConfig } from '../conf/gateway-config.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { Policy } from '../sessions/session.js';

export interface GatewayStateInit {
  name: string;
  config: GatewayConfig;
  apis: ApiSpec[];
  policies: Policy[];
  sessions: SessionStore;
}

/** What changed in a state (see {@link GatewayState.onChange}). */
export type StateChange = { kind: 'apis' } | { kind: 'policies' };

export class GatewayState {
  readonly name: string;
  readonly config: GatewayConfig;
  readonly sessions: SessionStore;
  version = 0;
  private readonly listeners: Array<(change: StateChange) => void> = [];
  private apis = new Map<string, ApiSpec>();
  private policies = new Map<string, Policy>();

  constructor(init: GatewayStateInit) {
    this.name = init.name;
    this.config = init.config;
    this.sessions = init.sessions;
    this.replaceApis(init.apis);
    this.replacePolicies(init.policies);
  }

  api(id: string): ApiSpec | undefined {
    return this.apis.get(id);
  }

  /**
   * The API spec that serves `req`: on a versioned API, its version's own (undefined when a
   * reload removed that version).
   */
  requestApi(req: Pick<GatewayRequest, 'apiId' | 'apiVersion'>): ApiSpec | undefined {
    const api = this.apis.get(req.apiId);
    if (api?.versioning === undefined || req.apiVersion === undefined) return api;
    return api.versioning.versions.get(req.apiVersion);
  }

  allApis(): ApiSpec[] {
    return [...this.apis.values()];
  }

  policy(id: string): Policy | undefined {
    return this.policies.get(id);
  }

  allPolicies(): Policy[] {
    return [...this.policies.values()];
  }

  replaceApis(apis: ApiSpec[]): void {
    const o = this.config.http_server_options;
    const matching: PathMatching = { prefix: o?.enable_path_prefix_matching === true, suffix: o?.enable_path_suffix_matching === true };
    // Every spec a request can be served by (a versioned API's versions too) matches its endpoints as svc.conf says.
    for (const a of apis) for (const spec of [a, ...Object.values(a.versioning?.versions ?? {})]) spec.pathMatching = matching;
    this.apis = new Map(apis.map((a) => [a.id, a]));
    this.version++;
    this.notify({ kind: 'apis' });
  }

  replacePolicies(policies: Policy[]): void {
    this.policies = new Map(policies.map((p) => [p.id, p]));
    this.version++;
    this.notify({ kind: 'policies' });
  }

  /** Calls `listener` after every change of APIs or policies. */
  onChange(listener: (change: StateChange) => void): void {
    this.listeners.push(listener);
  }

  private notify(change: StateChange): void {
    for (const l of this.listeners) l(change);
  }
}

const states = new Map<string, GatewayState>();

/** Makes `state` the one processors on this thread find under its name. */
export function registerGatewayState(state: GatewayState): void {
  states.set(state.name, state);
}

export function unregisterGatewayState(state: GatewayState): void {
  if (states.get(state.name) === state) states.delete(state.name);
}

/** The state of gateway `name`, or undefined when none is registered (its input is gone or in another stream). */
export function gatewayState(name: string): GatewayState | undefined {
  return states.get(name);
}
