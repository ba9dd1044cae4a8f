/**
 * Where a gateway's parts come from: svc.conf, the API definitions of `app_path`, the policies
 * and the session store. The `api_gateway` input loads through this interface; the loaders of
 * `conf/`, `apis/` and `sessions/` implement it (`loaders.ts`), and tests hand in their own.
 */
import type { ApiSpec } from '../apis/api-spec.js';
import type { GatewayConfig } from '../conf/gateway-config.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { Policy } from '../sessions/session.js';

/** A definition or policy that did not load: the others still do. */
export interface LoadError {
  file: string;
  message: string;
}

export interface GatewaySource {
  /** Reads svc.conf; unknown fields are warnings, wrong ones an error (thrown). */
  loadConfig(file: string): Promise<{ config: GatewayConfig; warnings: string[] }>;
  /** The API definitions of `app_path` (collisions are errors: the first wins). */
  loadApis(config: GatewayConfig): Promise<{ apis: ApiSpec[]; errors: LoadError[]; warnings?: string[] }>;
  loadPolicies(config: GatewayConfig): Promise<{ policies: Policy[]; errors: LoadError[] }>;
  /** Checks a definition posted to the management API; throws with the reason when it is broken. */
  parseApi(definition: unknown, format: 'classic' | 'oas'): Promise<ApiSpec>;
  createSessions(config: GatewayConfig): Promise<SessionStore>;
}
