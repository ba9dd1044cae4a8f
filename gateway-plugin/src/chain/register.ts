/**
 * Registers the `gateway` processor: Tyk's whole chain in one line, in its order (Tyk's
 * api_loader builds it per API the same way): the API-level `gateway_rate_limit`, `gateway_auth`,
 * the key-level `gateway_rate_limit` (limits and quota), `gateway_transform` (header and method
 * transforms), `gateway_url_rewrite`. The user's own
 * processors go in the slots between the stages; the stages themselves cannot be left out or
 * reordered, so the chain serves every definition the gateway implements.
 */
import { f, registerProcessor, runProcessors, type ComponentConfig, type Processor } from '@svc/engine';

const slot = (where: string) =>
  f
    .array(f.component('processor'))
    .default([])
    .describe(`Your processors to run ${where} (each request that got that far; a request answered by a stage skips them).`);

const spec = f.object({
  after_api_limit: slot('after the API-level rate limit, before authentication'),
  after_auth: slot('after authentication (the session is on the request), before the key-level rate limit and quota'),
  after_key_limit: slot('after the key-level rate limit and quota, before the URL rewrite'),
  after_rewrite: slot('after the URL rewrite, before the output'),
  smoothing_events: f
    .component('output')
    .optional()
    .describe("The key-level `gateway_rate_limit`'s `smoothing_events`: an output that gets one JSON message per smoothing event."),
});

registerProcessor('gateway', {
  // The gateway's state (APIs, sessions, live requests) is on the main thread: workers hand their batches here.
  mainThread: true,
  summary:
    "Tyk's chain in one processor: API-level rate limit, auth, key-level rate limit and quota, header and method transforms, URL rewrite, in that order.",
  description: [
    'Runs, for each request of an `api_gateway` input, the stages every API definition the gateway implements may',
    'need, in the order Tyk runs them: `gateway_rate_limit` with `scope: api`, `gateway_auth`, `gateway_rate_limit`',
    'with `scope: key`, `gateway_transform`, `gateway_url_rewrite`. Each stage does nothing for an API that does not use it (a keyless',
    'API skips auth). Your own processors go in `after_api_limit`, `after_auth`, `after_key_limit` and',
    '`after_rewrite`; a request a stage answers (401, 429, ...) skips everything after it. `engine lint` and',
    '`engine -c` check a hand-written chain against the definitions it serves; this one always passes.',
  ].join('\n'),
  config: spec,
  examples: [
    `input:
  api_gateway:
    conf: ./gateway/svc.conf
pipeline:
  processors:
    - gateway: {}
output:
  gateway_proxy: {}`,
    `pipeline:
  processors:
    - gateway:
        after_auth:
          - log: { message: 'authenticated' }`,
  ],
  factory: async (conf, ctx) => {
    const stage = (name: string, type: string, config: unknown): ComponentConfig => ({ type, label: '', path: `${ctx.path}.${name}`, config, processors: [] });
    const configs: ComponentConfig[] = [
      stage('api_limit', 'gateway_rate_limit', { scope: 'api' }),
      ...conf.after_api_limit,
      stage('auth', 'gateway_auth', {}),
      ...conf.after_auth,
      stage('key_limit', 'gateway_rate_limit', { scope: 'key', ...(conf.smoothing_events ? { smoothing_events: conf.smoothing_events } : {}) }),
      ...conf.after_key_limit,
      stage('transform', 'gateway_transform', {}),
      stage('rewrite', 'gateway_url_rewrite', {}),
      ...conf.after_rewrite,
    ];
    const processors = await ctx.buildProcessors(configs);
    const chain: Processor = { process: (batch) => runProcessors(processors, batch) };
    return chain;
  },
});
