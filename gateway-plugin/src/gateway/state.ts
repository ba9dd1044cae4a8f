/**
 * A gateway's state on this thread: its config, its APIs, its policies and its session store,
 * under a version that grows with every change (a reload, a key created). The `api_gateway`
 * input owns the state on the main thread; processors find it by name with {@link gatewayState}.
 */
import type { ApiSpec } from '../apis/api-spec.js';
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

export class GatewayState {
  readonly name: string;
  readonly config: GatewayConfig;
  readonly sessions: SessionStore;
  version = 0;
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
    this.apis = new Map(apis.map((a) => [a.id, a]));
    this.version++;
  }

  replacePolicies(policies: Policy[]): void {
    this.policies = new Map(policies.map((p) => [p.id, p]));
    this.version++;
  }

  /** Resolves once this thread has applied changes up to `version` (at once on the main thread). */
  atLeast(version: number): Promise<void> | undefined {
    void version;
    return undefined;
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

/** The state of gateway `name` on this thread, or undefined when none is registered. */
export function gatewayState(name: string): GatewayState | undefined {
  return states.get(name);
}
