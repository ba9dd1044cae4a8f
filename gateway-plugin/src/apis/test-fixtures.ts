/* eslint-disable @typescript-eslint/no-explicit-any */
/** A valid classic and a valid OAS definition using every field the loaders read: for the tests. */

export const classic = (): Record<string, any> => ({
  api_id: 'petstore',
  name: 'Pet Store',
  org_id: 'org1',
  active: true,
  use_keyless: false,
  enable_jwt: true,
  jwt_signing_method: 'hmac',
  jwt_source: 'c2VjcmV0',
  jwt_policy_field_name: 'policy',
  jwt_default_policies: ['default'],
  jwt_scope_claim_name: 'realm.scopes',
  jwt_scope_to_policy_mapping: { read: 'p-read' },
  jwt_expires_at_validation_skew: 5,
  auth_configs: { jwt: { auth_header_name: 'X-Token', use_param: true, use_cookie: true, cookie_name: 'tok' }, authToken: { auth_header_name: 'X-Key' } },
  strip_auth_data: true,
  global_rate_limit: { rate: 100, per: 60 },
  proxy: { listen_path: '/pets/', target_url: 'http://127.0.0.1:9000/v1', strip_listen_path: true },
  version_data: {
    not_versioned: true,
    versions: {
      Default: {
        name: 'Default',
        use_extended_paths: true,
        extended_paths: {
          rate_limit: [
            { path: '/status/{code}', method: 'get', rate: 2, per: 1 },
            { path: '/off', method: 'GET', rate: 2, per: 1, disabled: true },
          ],
          url_rewrites: [
            {
              path: '/old/{id}',
              method: 'GET',
              match_pattern: '/old/(\\w+)',
              rewrite_to: '/new/$1',
              triggers: [
                { on: 'all', options: { header_matches: { X_Mode: { match_rx: '^v(\\d)$' } } }, rewrite_to: '/v$svc_context.trigger-0-X-Mode-0-0/$1' },
              ],
            },
          ],
          virtual: [
            { path: '/token', method: 'POST', split_token: { token_url: 'http://127.0.0.1:9001/token' } },
            { path: '/js', method: 'GET', response_function_name: 'x', disabled: true },
          ],
        },
      },
    },
  },
});

export const oas = (): Record<string, any> => ({
  openapi: '3.0.3',
  info: { title: 'Orders', version: '1.0.0' },
  paths: {
    '/orders/{id}': { get: { operationId: 'getOrder' }, post: { operationId: 'token' } },
    '/status': { get: { operationId: 'status' } },
  },
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  security: [{ bearer: [] }],
  'x-svc-api-gateway': {
    info: { id: 'orders', name: 'Orders API', state: { active: true } },
    upstream: { url: 'http://127.0.0.1:9000', rateLimit: { enabled: true, rate: 10, per: '1m' } },
    server: {
      listenPath: { value: '/orders/', strip: true },
      authentication: {
        enabled: true,
        stripAuthorizationData: true,
        securitySchemes: { bearer: { enabled: true, header: { enabled: true, name: 'X-Jwt' }, query: { enabled: true, name: 'jwt' } } },
        jwt: {
          enabled: true,
          source: 'https://idp.example/jwks',
          signingMethod: 'rsa',
          identityBaseField: 'email',
          defaultPolicies: ['d'],
          scopes: { claimName: 'permissions', scopeToPolicyMapping: [{ scope: 'admin', policyId: 'p-admin' }] },
          issuedAtValidationSkew: 1,
          notBeforeValidationSkew: 2,
          expiresAtValidationSkew: 3,
        },
      },
    },
    middleware: {
      operations: {
        status: { rateLimit: { enabled: true, rate: 5, per: '10s' } },
        getOrder: { rateLimit: { enabled: true, rate: 1, per: '500ms' }, urlRewrite: { enabled: true, pattern: '/orders/(.*)', rewriteTo: '/o/$1' } },
        token: { splitToken: { enabled: true, tokenUrl: 'http://127.0.0.1:9001/token' } },
      },
    },
  },
});
