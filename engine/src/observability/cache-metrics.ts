/**
 * The metrics of a cache resource, as Benthos counts them (`MetricsForCache`): per operation
 * (`get`, `set`, `add`, `delete`) `cache_success`, `cache_error`, a get that found nothing as
 * `cache_not_found`, an add of a key already there as `cache_duplicate`, and the time each took in
 * the standard `cache_latency` (seconds, as every svc timer; Benthos' `cache_latency_ns` carries an
 * `operation` label too, the standard timer has none). Counted where the cache lives (the main
 * thread for a main-thread cache), once per operation.
 */
import type { Cache } from '../plugin/types.js';
import type { ComponentMetrics, Counter, Timer } from './metrics.js';

const OPS = ['get', 'set', 'add', 'delete'] as const;
type Op = (typeof OPS)[number];

interface OpMetrics {
  success: Counter;
  error: Counter;
  latency: Timer;
}

export function observedCache(cache: Cache, metrics: ComponentMetrics): Cache {
  const success = metrics.counter('cache_success', { help: 'Cache operations that succeeded, by operation.', labels: ['operation'] });
  const error = metrics.counter('cache_error', { help: 'Cache operations that failed, by operation.', labels: ['operation'] });
  const latency = metrics.timer('cache_latency');
  const notFound = metrics.counter('cache_not_found', { help: 'Gets that found no key.', labels: ['operation'] }).labels('get');
  const duplicate = metrics.counter('cache_duplicate', { help: 'Adds of a key already there.', labels: ['operation'] }).labels('add');
  const by = {} as Record<Op, OpMetrics>;
  for (const op of OPS) by[op] = { success: success.labels(op), error: error.labels(op), latency };

  /** Times `run` and counts its outcome; `judge` says which counter a result goes to. */
  function observe<T>(op: Op, run: () => Promise<T> | T, judge: (v: T) => Counter): Promise<T> | T {
    const m = by[op];
    const t0 = performance.now();
    const done = (v: T): T => {
      m.latency.observe((performance.now() - t0) / 1000);
      judge(v).inc(1);
      return v;
    };
    const failed = (err: unknown): never => {
      m.latency.observe((performance.now() - t0) / 1000);
      m.error.inc(1);
      throw err;
    };
    try {
      const r = run();
      return r instanceof Promise ? r.then(done, failed) : done(r);
    } catch (err) {
      return failed(err);
    }
  }

  return {
    get: (k) =>
      observe(
        'get',
        () => cache.get(k),
        (v) => (v === undefined ? notFound : by.get.success),
      ),
    set: (k, v, ttl) =>
      observe(
        'set',
        () => cache.set(k, v, ttl),
        () => by.set.success,
      ),
    add: (k, v, ttl) =>
      observe(
        'add',
        () => cache.add(k, v, ttl),
        (added) => (added ? by.add.success : duplicate),
      ),
    delete: (k) =>
      observe(
        'delete',
        () => cache.delete(k),
        () => by.delete.success,
      ),
    ...(cache.close ? { close: () => cache.close!() } : {}),
  };
}
