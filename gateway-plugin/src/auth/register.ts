/** Registers the `gateway_auth` processor; its implementation loads when one is built. */
import { f, registerProcessor } from '@svc/engine';

registerProcessor('gateway_auth', {
  // The gateway's state (APIs, sessions, live requests) is on the main thread: workers hand their batches here.
  mainThread: true,
  summary: "Authenticates gateway requests as Tyk does (auth keys, JWT, policies) and answers refusals with Tyk's words.",
  description: [
    'For each request of an `api_gateway` input: keyless APIs pass; `use_standard_auth` APIs look the key up',
    'in the session store (hashed with `hash_keys`, as Tyk names keys); JWT APIs verify the token (HMAC, RSA,',
    'ECDSA, a PEM or a JWKS URL, key-level secrets) and derive the session from its policies. The session is',
    'then checked (inactive, expired, access rights, allowed URLs) and put on the request for the processors',
    'after this one; a refusal is answered at once with Tyk’s status and body. Split-token endpoints are',
    'answered here.',
  ].join('\n'),
  config: f.object({}),
  examples: [
    `input:
  api_gateway:
    conf: ./gateway/svc.conf
pipeline:
  processors:
    - gateway_auth: {}
output:
  gateway_proxy: {}`,
  ],
  // The implementation (fast-jwt, undici) loads when a gateway_auth is built, not with the plugin.
  factory: async (_conf, ctx) => {
    const { GatewayAuth } = await import('./gateway-auth.js');
    return new GatewayAuth(ctx.logger);
  },
});
