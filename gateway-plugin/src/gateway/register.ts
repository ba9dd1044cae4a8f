/**
 * Registers the `api_gateway` input, which loads its parts (svc.conf, API definitions, policies,
 * the session store) from files through `fileSource`.
 */
import { registerInput } from '@svc/engine';
import { apiGatewaySpec } from './api-gateway-spec.js';

registerInput('api_gateway', {
  summary: "A Tyk-compatible API gateway: serves the API definitions of svc.conf's app_path, with Tyk's management API.",
  description: [
    "`conf` names the gateway config file (svc.conf: JSON with Tyk's field names and the `svc` renames):",
    "`listen_address`/`listen_port` (default 8080), `secret` (the management API's), `app_path` (a folder of",
    'API definitions: classic JSON, or OAS with `x-svc-api-gateway`), `policies`, `storage` (Redis; absent: in',
    'memory), `hash_keys`, `control_api_port`. Unknown fields are warnings.',
    '',
    "Each request is routed to the API with the longest listen path covering its path (Tyk's rule; a listen",
    "path covers itself and the paths under it; `active: false` ones are served too, as Tyk 5.14 serves them; no API: Tyk's 404 `Not Found`).",
    "A path that is not clean (`..`, `//`, encoded dots) gets a 301 to its clean form, as Tyk's router answers.",
    'The request becomes a one-message transaction for the pipeline (`gateway`, then `gateway_proxy`): the',
    'message carries the request (API, method, path, query, headers); its body streams through the proxy and is',
    'read into the message only when a rule needs it (split token: bounded by `max_body_size`, 413, and',
    "`body_timeout`, 408). A refusal by a processor is its answer; a nack is Tyk's 500 (its answer when proxying fails).",
    '',
    "The management API (Tyk's gateway API, `/tyk/` → `/svc/`) is served on the same port, or on",
    '`control_api_port`: `/hello`, and with `x-svc-authorization: <secret>` `/svc/apis` (and `/svc/apis/oas`),',
    "`/svc/keys`, `/svc/keys/create`, `/svc/policies`, `/svc/reload`, `/svc/reload/group`, with Tyk's bodies.",
    "APIs and policies it creates are written as files and go live on reload, as Tyk's do; a reload never",
    "changes a request already routed. The gateway's processors run on the main thread, beside the state",
    '(APIs, policies, in-memory keys); a gateway scales out by `processes`, which share keys, reloads and',
    'in-memory limits through the primary: a key created answers in every process for the very next request.',
    '',
    '`engine lint` and `engine -c` check the pipeline against the definitions: each stage a definition needs',
    '(`gateway_auth` for keys, `gateway_rate_limit` scopes for limits, `gateway_url_rewrite` for rewrites) must be',
    'there in Tyk’s order; a definition loaded later that needs a missing one is refused at that load, and a',
    'request that missed a stage its API needs is answered 500, never proxied. A definition field svc does not',
    'implement refuses the definition when it is turned on.',
  ].join('\n'),
  config: apiGatewaySpec,
  examples: [
    `input:
  api_gateway:
    conf: ./gateway/svc.conf
pipeline:
  processors:
    - gateway: {}
output:
  gateway_proxy: {}`,
  ],
  // The gateway (its loaders, the Redis client) loads when an api_gateway is built, not with the plugin.
  factory: async (conf, ctx) => {
    const [{ ApiGatewayInput }, { fileSource }] = await Promise.all([import('./api-gateway-input.js'), import('./file-source.js')]);
    return new ApiGatewayInput(conf, ctx, fileSource(ctx.logger));
  },
});
