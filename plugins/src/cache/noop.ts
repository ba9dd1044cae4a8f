import { f, registerCache } from '@svc/engine';

/**
 * `noop`: a cache that stores nothing (Benthos' noop cache): every write succeeds (`add` too: no
 * key is ever there), every read finds nothing. For testing and for turning a cache off.
 */
registerCache('noop', {
  summary: 'Noop is a cache that stores nothing, all gets returns not found. Why? Sometimes doing something is not needed.',
  config: f.object({}),
  examples: ['cache_resources:\n  - label: nothing\n    noop: {}\n'],
  factory: (_conf, ctx) => ({
    get(key) {
      ctx.logger.trace(`pretend to get key ${JSON.stringify(key)}`);
      return undefined;
    },
    set(key) {
      ctx.logger.trace(`pretend to set key ${JSON.stringify(key)}`);
    },
    add(key) {
      ctx.logger.trace(`pretend to add key ${JSON.stringify(key)}`);
      return true;
    },
    delete(key) {
      ctx.logger.trace(`pretend to delete key ${JSON.stringify(key)}`);
    },
  }),
});
