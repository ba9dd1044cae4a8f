/** Registers the `gateway_transform` processor; its implementation loads when one is built. */
import { f, registerProcessor } from '@svc/engine';

registerProcessor('gateway_transform', {
  // The gateway's state (APIs, sessions, live requests) is on the main thread: workers hand their batches here.
  mainThread: true,
  summary: "Shapes gateway requests as Tyk's header and method transforms: request and response headers, the upstream method.",
  description: [
    'For each request of an `api_gateway` input (after `gateway_auth` and the key-level `gateway_rate_limit`,',
    'before `gateway_url_rewrite`): the version’s `global_headers_remove` and `global_headers`, then the first',
    '`transform_headers` entry for the method and path; the first `method_transforms` entry gives the method the',
    "upstream gets (Tyk's 405 `Method not allowed` for another than GET, POST, PUT, DELETE, OPTIONS, PATCH); the",
    "first `transform_response_headers` entry and the global response headers edit the upstream's answer (applied",
    'by `gateway_proxy`). Values may use `$svc_context.*` (with `enable_context_vars`), `$svc_meta.*` and `$secret_*`.',
  ].join('\n'),
  config: f.object({}),
  examples: [
    `pipeline:
  processors:
    - gateway_rate_limit: { scope: api }
    - gateway_auth: {}
    - gateway_rate_limit: { scope: key }
    - gateway_transform: {}
    - gateway_url_rewrite: {}`,
  ],
  factory: async (_conf, ctx) => {
    const { GatewayTransform } = await import('./gateway-transform.js');
    return new GatewayTransform(ctx.logger);
  },
});
