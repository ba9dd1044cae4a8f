import type { ComponentKind } from '../config/component-config.js';
import type { Field } from '../config/spec.js';
import type { MetricsExporter } from '../observability/metrics.js';
import type { Tracer } from '../observability/tracer.js';
import type { Cache, ComponentSpec, Input, Output, Processor, RateLimit, RegisteredComponent } from './types.js';

/**
 * The component registry. One per process and thread, kept on `globalThis` so that a plugin
 * that resolved its own copy of `@svc/engine` still registers into the engine's registry.
 */
export class Registry {
  private readonly byKind = new Map<ComponentKind, Map<string, RegisteredComponent>>();
  private readonly aliasOf = new Map<string, string>();

  register<C, T>(kind: ComponentKind, name: string, spec: ComponentSpec<C, T>): void {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) {
      throw new TypeError(`component name "${name}" must be snake_case (a-z, 0-9, _), starting with a letter`);
    }
    let m = this.byKind.get(kind);
    if (!m) this.byKind.set(kind, (m = new Map()));
    // Two plugins with one name would silently shadow each other, on some threads only.
    if (m.has(name)) throw new TypeError(`a ${kind} named "${name}" is registered already: rename one of them`);
    m.set(name, { kind, name, spec: spec as ComponentSpec<unknown, unknown> });
  }

  /** Registers `alias` as another name of an already registered component. */
  alias(kind: ComponentKind, alias: string, name: string): void {
    const c = this.get(kind, name);
    if (!c) throw new TypeError(`cannot alias unknown ${kind} "${name}"`);
    this.register(kind, alias, c.spec);
    this.aliasOf.set(`${kind}:${alias}`, name);
  }

  get(kind: ComponentKind, name: string): RegisteredComponent | undefined {
    return this.byKind.get(kind)?.get(name);
  }

  names(kind: ComponentKind): string[] {
    return [...(this.byKind.get(kind)?.keys() ?? [])].sort();
  }

  all(): RegisteredComponent[] {
    const out: RegisteredComponent[] = [];
    for (const m of this.byKind.values()) out.push(...m.values());
    return out.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind.localeCompare(b.kind)));
  }

  /** The original name when `name` is an alias, else undefined. */
  aliasTarget(kind: ComponentKind, name: string): string | undefined {
    return this.aliasOf.get(`${kind}:${name}`);
  }
}

const KEY = Symbol.for('svc.registry');
type WithRegistry = typeof globalThis & { [KEY]?: Registry };

/** The registry of this thread. */
export function registry(): Registry {
  const g = globalThis as WithRegistry;
  return (g[KEY] ??= new Registry());
}

/** Registers an input. The factory receives the validated config (defaults applied). */
export function registerInput<C>(name: string, spec: ComponentSpec<C, Input> & { config: Field<C> }): void {
  registry().register('input', name, spec);
}

/** Registers an output. */
export function registerOutput<C>(name: string, spec: ComponentSpec<C, Output> & { config: Field<C> }): void {
  registry().register('output', name, spec);
}

/** Registers a processor; it runs on every pipeline thread. */
export function registerProcessor<C>(name: string, spec: ComponentSpec<C, Processor> & { config: Field<C> }): void {
  registry().register('processor', name, spec);
}

/** Registers a rate limit kind (used from `rate_limit_resources`). */
export function registerRateLimit<C>(name: string, spec: ComponentSpec<C, RateLimit> & { config: Field<C> }): void {
  registry().register('rate_limit', name, spec);
}

/** Registers a cache kind (used from `cache_resources`). */
export function registerCache<C>(name: string, spec: ComponentSpec<C, Cache> & { config: Field<C> }): void {
  registry().register('cache', name, spec);
}

/** Registers a metrics exporter (the `metrics` section); names given to it come without the prefix. */
export function registerMetricsExporter<C>(name: string, spec: ComponentSpec<C, MetricsExporter> & { config: Field<C> }): void {
  registry().register('metrics', name, spec);
}

/** Registers a tracer backend (the `tracer` section). */
export function registerTracer<C>(name: string, spec: ComponentSpec<C, Tracer> & { config: Field<C> }): void {
  registry().register('tracer', name, spec);
}
