/** Registers the `gateway_rate_limit` processor (its implementation loads when one is built) and the gateway service rate limiting starts with each gateway. */
import { Message, f, registerProcessor, type ComponentConfig, type ComponentContext, type Output } from '@svc/engine';
import type { SmoothingChange } from './redis-limiter.js';
import { registerGatewayService } from '../kernel/gateway-services.js';

const spec = f.object({
  scope: f
    .enum(['api', 'key'] as const)
    .default('key')
    .describe(
      '`api`: API-level limits (per-endpoint, then `global_rate_limit`), counted for every request: put it before `gateway_auth`. `key`: the key’s per-endpoint, per-API or global limit and its quota: put it after `gateway_auth`.',
    ),
  smoothing_events: f
    .component('output')
    .optional()
    .describe(
      'An output (any output config, e.g. `inproc: smoothing`) that gets one JSON message per smoothing event (`RateLimitSmoothingUp` / `RateLimitSmoothingDown`). Events are also logged and counted in `gateway_rate_limit_smoothing_events`.',
    ),
});

async function eventSink(conf: ComponentConfig | undefined, ctx: ComponentContext): Promise<((change: SmoothingChange) => void) | undefined> {
  if (conf === undefined) return undefined;
  const output: Output = await ctx.buildOutput(conf);
  const write = (change: SmoothingChange) =>
    void output
      .write([new Message(Buffer.from(JSON.stringify({ ...change, at: new Date().toISOString() })))])
      .catch((err: unknown) => ctx.logger.warn(`smoothing event not delivered: ${String(err)}`));
  return write;
}

registerProcessor('gateway_rate_limit', {
  // The gateway's state (APIs, sessions, live requests) is on the main thread: workers hand their batches here.
  mainThread: true,
  summary: 'Rate limits and quotas of gateway requests at the five scopes Tyk has, with its algorithms, bodies and headers.',
  description: [
    'Limits come from the API definitions (`global_rate_limit`, per-endpoint `extended_paths.rate_limit` or OAS',
    '`rateLimit`) and the sessions and policies (`rate`/`per`, `access_rights[*].limit`, per-endpoint `endpoints`,',
    '`quota_max`/`quota_renewal_rate`, `smoothing`). svc.conf picks the algorithm for the whole gateway: the',
    'distributed token bucket (default), `enable_shared_store_rolling_limiter`, `enable_sentinel_rate_limiter`,',
    '`enable_fixed_window_rate_limiter`, `enable_non_transactional_rate_limiter`, `drl_threshold`; counting is in',
    'memory shared by the threads without `storage`, in Redis with it.',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - gateway_rate_limit: { scope: api }
    - gateway_auth: {}
    - gateway_rate_limit: { scope: key }`,
  ],
  factory: async (conf, ctx) => {
    const [{ GatewayRateLimit }, { sharedWindowTable }, { sharedLiveInstances }] = await Promise.all([
      import('./gateway-rate-limit.js'),
      import('./shared-table.js'),
      import('./distributed-limiter.js'),
    ]);
    const sink = await eventSink(conf.smoothing_events, ctx);
    const counter = ctx.metrics?.counter('gateway_rate_limit_smoothing_events', { help: 'Rate limit smoothing events.', labels: ['event'] });
    return new GatewayRateLimit(conf.scope, sharedWindowTable(ctx), sharedLiveInstances(ctx), ctx.logger, (change) => {
      ctx.logger.info(`${change.event}: allowance ${change.previous} -> ${change.allowance} (rate ${change.rate})`);
      counter?.labels(change.event).inc();
      sink?.(change);
    });
  },
});

// Started by each gateway when it loads svc.conf, whether or not a stream limits anything: the
// algorithm check refuses a config it cannot run, and the distributed limiter's heartbeat counts this instance.
registerGatewayService('rate limiting', async (config, ctx, log) => (await import('./instances.js')).startRateLimiting(config, ctx, log));
