/**
 * The gateway plugin: the `api_gateway` input, the `gateway_auth` processor and the
 * `gateway_proxy` output. Importing this module registers them through @svc/engine's public
 * plugin API; the engine loads it as a built-in.
 */
import './gateway/index.js';
import './auth/index.js';
import './proxy/index.js';
import './ratelimit/index.js';
import './rewrite/index.js';
import './transform/index.js';
import './chain/register.js';

export {};
