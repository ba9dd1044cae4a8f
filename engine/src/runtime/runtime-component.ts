import type { ComponentConfig, ComponentKind } from '../config/component-config.js';
import { ErrorCode, SvcError } from '../errors.js';
import type { Registry } from '../plugin/registry.js';
import type { ComponentContext, ComponentSpec } from '../plugin/types.js';
import type { Sink } from './sink.js';
import type { Source } from './source.js';

/** What a runtime component builds its children with: runtime parts, every wrapper included. */
export interface Parts {
  source(config: ComponentConfig): Promise<Source>;
  sink(config: ComponentConfig): Promise<Sink>;
  /** The input resource of that label (`input_resources`), as built. */
  resourceSource(label: string): Source;
  /** The output resource of that label (`output_resources`), as built. */
  resourceSink(label: string): Sink;
}

/**
 * A component the runtime provides itself (the brokers). It is registered like any other, so
 * that its config is linted, listed and documented, but the Builder builds it with `Parts`: it
 * reads and writes runtime parts (flush hints included), never plugin types cast to carry them.
 */
export interface RuntimeComponent<C, T> extends Omit<ComponentSpec<C, never>, 'factory'> {
  build(config: C, ctx: ComponentContext, parts: Parts): Promise<T>;
}

// By the spec object in the registry (aliases share it); plugin code cannot add to these.
const sources = new WeakMap<object, RuntimeComponent<unknown, Source>>();
const sinks = new WeakMap<object, RuntimeComponent<unknown, Sink>>();

export function registerRuntimeInput<C>(r: Registry, name: string, c: RuntimeComponent<C, Source>): void {
  sources.set(register(r, 'input', name, c), c as RuntimeComponent<unknown, Source>);
}

export function registerRuntimeOutput<C>(r: Registry, name: string, c: RuntimeComponent<C, Sink>): void {
  sinks.set(register(r, 'output', name, c), c as RuntimeComponent<unknown, Sink>);
}

/** The runtime component behind a registered input spec, if it is one. */
export function runtimeSource(spec: object): RuntimeComponent<unknown, Source> | undefined {
  return sources.get(spec);
}

/** The runtime component behind a registered output spec, if it is one. */
export function runtimeSink(spec: object): RuntimeComponent<unknown, Sink> | undefined {
  return sinks.get(spec);
}

function register<C>(r: Registry, kind: ComponentKind, name: string, c: RuntimeComponent<C, unknown>): object {
  const spec: ComponentSpec<C, never> = {
    summary: c.summary,
    description: c.description,
    config: c.config,
    examples: c.examples,
    // Only the Builder builds it; a factory called by hand (a test's context) says so.
    factory: () => {
      throw new SvcError(ErrorCode.ConfigLint, `the ${name} ${kind} is part of the runtime: build it with ctx.build${kind === 'input' ? 'Input' : 'Output'}`);
    },
  };
  r.register(kind, name, spec);
  return spec;
}
