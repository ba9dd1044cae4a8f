/** Registers the `gateway_url_rewrite` processor; its implementation loads when one is built. */
import { f, registerProcessor } from '@svc/engine';

registerProcessor('gateway_url_rewrite', {
  // The gateway's state (APIs, sessions, live requests) is on the main thread: workers hand their batches here.
  mainThread: true,
  summary: 'Rewrites gateway requests’ URLs as Tyk’s URL rewrite middleware: basic and advanced triggers, a new host, or a loop to another API.',
  description: [
    'For each request of an `api_gateway` input, the first URL rewrite rule of its API for the request’s method',
    'and path (classic `extended_paths.url_rewrites`, OAS `urlRewrite`) applies: the basic `match_pattern`',
    '(groups as `$1`…) gates it; advanced triggers (`header_matches`, `query_val_matches`, `path_part_matches`,',
    '`session_meta_matches`, `request_context_matches`, `payload_matches`, each `match_rx` and `reverse`, `on:',
    'all|any`) pick another `rewrite_to`, their matches as `$svc_context.trigger-{n}-{name}-{i}`; `$svc_meta.*`',
    'is session metadata. A full URL goes to another host; `svc://{api id or name}/path` runs the request for',
    'that API of the gateway, with no network call (`loop_limit`, `check_limits`, `method` as Tyk). Patterns',
    'are RE2: no pattern or input can hang the gateway.',
  ].join('\n'),
  config: f.object({}),
  examples: [
    `pipeline:
  processors:
    - gateway_auth: {}
    - gateway_url_rewrite: {}`,
  ],
  factory: async (_conf, ctx) => {
    const { GatewayUrlRewrite } = await import('./gateway-url-rewrite.js');
    return new GatewayUrlRewrite(ctx.logger);
  },
});
