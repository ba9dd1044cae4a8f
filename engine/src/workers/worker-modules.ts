import { COMPONENT_PACKAGES, componentOrigin } from '../plugin/component-packages.js';
import { registry } from '../plugin/registry.js';

/**
 * The plugin modules a pipeline worker loads: the engine's own components and every user module
 * always, a package of components only when the configs it builds (processors, resources) name one
 * of that package's components. Every component type is a key of the YAML (`type` once validated),
 * so walking the configs finds them all; a package named by mistake costs only its load. Loading the gateway and
 * governance packages into each worker of a mapping chain costs about 0.5 s of CPU per worker.
 */
export function workerModules(modules: readonly string[], configs: unknown[]): string[] {
  const keys = new Set<string>();
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) for (const x of v) walk(x);
    else
      for (const k of Object.keys(v)) {
        const x = (v as Record<string, unknown>)[k];
        // A validated component config names its type in `type`; a raw one as its key.
        keys.add(k === 'type' && typeof x === 'string' ? x : k);
        walk(x);
      }
  };
  for (const c of configs) walk(c);
  const needed = new Set<string>();
  for (const c of registry().all()) {
    const origin = keys.has(c.name) ? componentOrigin(c.kind, c.name) : undefined;
    if (origin !== undefined) needed.add(origin);
  }
  return modules.filter((m) => !COMPONENT_PACKAGES.includes(m) || needed.has(m));
}
