/**
 * A gateway's state on this thread: its config, its APIs, its policies and its session store,
 * under a version that grows with every change (a reload, a key created). The `api_gateway`
 * input owns the state on the main thread; processors find it by name with {@link gatewayState}.
 */
import type { GatewayRequest } from './request.js';
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

/** What changed in a state (see {@link GatewayState.onChange}). */
export type StateChange = { kind: 'apis' } | { kind: 'policies' };

export class GatewayState {
  readonly name: string;
  /** Not readonly only so that a worker's replica can take it from the main thread's snapshot. */
  config: GatewayConfig;
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
    return Object.hasOwn(api.versioning.versions, req.apiVersion) ? api.versioning.versions[req.apiVersion] : undefined;
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
    this.notify({ kind: 'apis' });
  }

  replacePolicies(policies: Policy[]): void {
    this.policies = new Map(policies.map((p) => [p.id, p]));
    this.version++;
    this.notify({ kind: 'policies' });
  }

  /** Counts a change made elsewhere (a session written): the new version. */
  bump(): number {
    return ++this.version;
  }

  /** Calls `listener` after every change of APIs or policies (the main thread publishes them to workers). */
  onChange(listener: (change: StateChange) => void): void {
    this.listeners.push(listener);
  }

  private notify(change: StateChange): void {
    for (const l of this.listeners) l(change);
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

/** Makes the state of a gateway owned by another thread (see `state-replica.ts`, on workers). */
let replicaFactory: ((name: string) => GatewayState) | undefined;

/** Set on worker threads: {@link gatewayState} then makes a replica of a gateway it does not own. */
export function setReplicaFactory(factory: ((name: string) => GatewayState) | undefined): void {
  replicaFactory = factory;
}

/**
 * The state of gateway `name` on this thread, or undefined when none is registered. On a worker
 * thread, the first call makes a replica fed by the main thread: await `atLeast(req.version)`
 * before reading it.
 */
export function gatewayState(name: string): GatewayState | undefined {
  let s = states.get(name);
  if (s === undefined && replicaFactory !== undefined) {
    s = replicaFactory(name);
    states.set(name, s);
  }
  return s;
}
