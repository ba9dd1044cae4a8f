import type { Processor } from '../plugin/types.js';

/**
 * The processor a component built, behind the wrappers the runtime adds around it (metrics,
 * error log). A component that needs to know what another one is (a workflow using a `branch`
 * processor resource) looks through them with {@link unwrapProcessor}.
 */
const inner = new WeakMap<Processor, Processor>();

/** Records that `outer` is the runtime's wrapper of `built`. */
export function wrapsProcessor(outer: Processor, built: Processor): Processor {
  inner.set(outer, inner.get(built) ?? built);
  return outer;
}

/** The processor a component's factory returned, looking through the runtime's wrappers. */
export function unwrapProcessor(p: Processor): Processor {
  return inner.get(p) ?? p;
}
