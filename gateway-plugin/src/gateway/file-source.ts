/**
 * Where an `api_gateway` input loads its parts from: svc.conf (`conf/`), the API definitions of
 * `app_path` (`apis/`), the policies and the session store (`sessions/`). API definitions resolve
 * their external references through one {@link ReferenceResolver} per gateway, made from the
 * config's `secrets` and `kv` once it is read.
 */
import type { Logger } from '@svc/engine';
import { loadApis } from '../apis/load-apis.js';
import { parseApiDefinition } from '../apis/parse-api-definition.js';
import type { GatewayConfig } from '../conf/gateway-config.js';
import { loadGatewayConfig } from '../conf/load-gateway-config.js';
import { ReferenceResolver } from '../refs/resolver.js';
import { createSessionStore } from '../sessions/create-store.js';
import { loadPolicies } from '../sessions/load-policies.js';
import type { GatewaySource } from '../kernel/gateway-source.js';

export function fileSource(log: Logger): GatewaySource {
  let refs: ReferenceResolver | undefined;
  let refsFor: GatewayConfig | undefined;
  const resolver = (config: GatewayConfig): ReferenceResolver => {
    if (refs === undefined || refsFor !== config) {
      void refs?.close();
      refs = new ReferenceResolver(config, log);
      refsFor = config;
    }
    return refs;
  };
  return {
    async loadConfig(file) {
      const loaded = await loadGatewayConfig(file, { log });
      resolver(loaded.config);
      return loaded;
    },
    loadApis: (config) => loadApis(config.app_path, resolver(config)),
    loadPolicies: (config) => loadPolicies(config),
    parseApi(definition) {
      if (refs === undefined) throw new Error('the gateway config is not loaded yet');
      return parseApiDefinition(definition, refs, undefined, (w) => log.warn(w));
    },
    createSessions: (config) => Promise.resolve(createSessionStore(config)),
  };
}
