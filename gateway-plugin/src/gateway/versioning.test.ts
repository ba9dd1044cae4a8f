/**
 * Versioned APIs (issue 25, part 3; versions as separate APIs too, classic and OAS) against a real gateway process and a real upstream
 * that records what reaches it: the version read from a header, a query parameter or the path,
 * stripped from what the upstream gets, `default_version`, `fallback_to_default`, each version's
 * own extended paths and `override_target`, expiry (Tyk's three 403 texts and X-Svc-Api-Expires),
 * and a key's access rights naming versions. Every answer here was compared with Tyk v5.14.0 built
 * from source (/tmp/peers/bin/tyk) on the same definitions by `scripts/tyk-diff-before-chain.mjs`
 * (its `ver*` and `vexp*` rows; Tyk's header is X-Tyk-Api-Expires); the access-rights check is
 * Tyk's AccessRightsCheck read from its source (`gateway/mw_access_rights.go`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classicDef, definitionGateway, recordingUpstream, tykBody, type Def } from './definition-fixtures.js';
import { call } from './test-support.js';

const up = recordingUpstream();

function versioned(id: string, definition: Def, versions: Record<string, Def>, data: Def = {}, more: Def = {}): Def {
  return {
    ...classicDef(id, up.target()),
    definition,
    version_data: {
      not_versioned: false,
      versions: Object.fromEntries(Object.entries(versions).map(([k, v]) => [k, { name: k, use_extended_paths: true, extended_paths: {}, ...v }])),
      ...data,
    },
    ...more,
  };
}

/** `method path` with `headers`: the status and body, and what the upstream saw (undefined: nothing). */
async function send(port: number, path: string, headers: Record<string, string> = {}, method = 'GET') {
  const before = up.seen.length;
  const r = await call(port, method, path, { headers });
  assert.ok(up.seen.length - before <= 1);
  return { ...r, upstream: up.seen[before] };
}

const NOT_FOUND = tykBody('Version information not found');
const NO_SUCH = tykBody('This API version does not seem to exist');
const EXPIRED = tykBody('Api Version has expired, please check documentation or contact administrator');

describe('versioned classic APIs (Tyk: mw_version_check.go, api_definition.go getVersionFromRequest / Version)', () => {
  it('the version from a header: its own lists and target, stripped, expiry dates announced and enforced', async () => {
    const { port, engine } = await definitionGateway({
      'h.json': versioned(
        'h',
        { location: 'header', key: 'x-api-version', strip_versioning_data: true },
        {
          v1: { expires: '2031-03-04 05:06', extended_paths: { black_list: [{ path: '/old', method: 'GET' }] } },
          v2: { override_target: `${up.target()}/v2base` },
          gone: { expires: '2001-01-01 00:00' },
          bad: { expires: 'soon' },
        },
      ),
      'd.json': versioned('d', { location: 'header', key: 'x-api-version' }, { v1: {}, v2: {} }, { default_version: 'v1' }),
      'f.json': versioned('f', { location: 'header', key: 'x-api-version', fallback_to_default: true }, { v1: {}, v2: {} }, { default_version: 'v1' }),
    });
    try {
      let r = await send(port, '/h/x');
      assert.deepEqual([r.status, r.body, r.upstream], [403, NOT_FOUND, undefined]);
      r = await send(port, '/h/x', { 'x-api-version': 'v1' });
      assert.deepEqual([r.status, r.upstream?.line, r.upstream?.headers['x-api-version']], [200, 'GET /x', undefined], 'stripped');
      assert.equal(r.headers['x-svc-api-expires'], 'Tue, 04 Mar 2031 05:06:00 UTC');
      r = await send(port, '/h/old', { 'x-api-version': 'v1' });
      assert.deepEqual([r.status, r.body], [403, tykBody('Requested endpoint is forbidden')], "v1's own black list");
      r = await send(port, '/h/old', { 'x-api-version': 'v2' });
      assert.deepEqual([r.status, r.upstream?.line, r.headers['x-svc-api-expires']], [200, 'GET /v2base/old', undefined], "v2's override_target");
      r = await send(port, '/h/x', { 'x-api-version': 'v9' });
      assert.deepEqual([r.status, r.body], [403, NO_SUCH]);
      for (const v of ['gone', 'bad']) {
        r = await send(port, '/h/x', { 'x-api-version': v });
        assert.deepEqual([r.status, r.body, r.upstream], [403, EXPIRED, undefined], v);
      }
      r = await send(port, '/d/x');
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /x'], 'default_version');
      r = await send(port, '/d/x', { 'x-api-version': 'v2' });
      assert.deepEqual([r.status, r.upstream?.headers['x-api-version']], [200, 'v2'], 'not stripped without strip_versioning_data');
      r = await send(port, '/d/x', { 'x-api-version': 'v3' });
      assert.deepEqual([r.status, r.body], [403, NO_SUCH]);
      r = await send(port, '/f/x', { 'x-api-version': 'v3' });
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /x'], 'fallback_to_default');
    } finally {
      await engine.stop();
    }
  });

  it('the version from a query parameter (stripped: the query re-encoded as Go does) or the path (stripped: its segment)', async () => {
    const { port, engine } = await definitionGateway({
      'q.json': versioned('q', { location: 'url-param', key: 'version', strip_versioning_data: true }, { v1: {} }),
      'q2.json': versioned('q2', { location: 'url-param', key: 'version' }, { v1: {} }),
      'u.json': versioned('u', { location: 'url', strip_path: true }, { v1: {}, v2: { extended_paths: { white_list: [{ path: '/only', method: 'GET' }] } } }),
      'u2.json': versioned('u2', { location: 'url' }, { v1: {} }),
      'p.json': versioned('p', { location: 'url', strip_versioning_data: true, url_versioning_pattern: '^v\\d+$' }, { v1: {}, latest: {} }),
    });
    try {
      let r = await send(port, '/q/x?z=1&version=v1&a=b+c&a=%21');
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /x?a=b+c&a=%21&z=1']);
      r = await send(port, '/q/x?version=v2');
      assert.deepEqual([r.status, r.body], [403, NO_SUCH]);
      r = await send(port, '/q2/x?version=v1&z=1');
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /x?version=v1&z=1']);
      // Tyk removes the first `v1/` of the path, and only with a slash after it.
      r = await send(port, '/u/v1/x/v1/y');
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /x/v1/y']);
      r = await send(port, '/u/v1');
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /v1']);
      r = await send(port, '/u/v2/only');
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /only'], "v2's white list sees the path without the version");
      r = await send(port, '/u/v2/other');
      assert.equal(r.status, 403);
      r = await send(port, '/u/');
      assert.deepEqual([r.status, r.body], [403, NOT_FOUND]);
      r = await send(port, '/u2/v1/x');
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /v1/x']);
      r = await send(port, '/p/latest/x');
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /latest/x'], 'a segment the pattern does not match is the version, not stripped');
    } finally {
      await engine.stop();
    }
  });

  it('not versioned: the API expiration refuses (APIExpired), dates announced; the served version is the only one or Default', async () => {
    const { port, engine } = await definitionGateway({
      'e.json': classicDef('e', up.target(), { expiration: '2035-01-02 03:04' }, {}, { expires: '2031-03-04 05:06' }),
      'ed.json': classicDef('ed', up.target(), { expiration: '2001-01-02 03:04' }),
      'ev.json': classicDef('ev', up.target(), {}, {}, { expires: '2001-01-02 03:04' }),
      'two.json': {
        ...classicDef('two', up.target()),
        version_data: {
          not_versioned: true,
          default_version: 'b',
          versions: { a: { name: 'a' }, b: { name: 'b', use_extended_paths: true, extended_paths: { black_list: [{ path: '/x', method: 'GET' }] } } },
        },
      },
      'amb.json': {
        ...classicDef('amb', up.target()),
        version_data: { not_versioned: true, versions: { Default: { name: 'Default' }, default: { name: 'default' } } },
      },
    });
    try {
      let r = await send(port, '/e/x');
      assert.deepEqual([r.status, r.headers['x-svc-api-expires']], [200, 'Tue, 02 Jan 2035 03:04:00 UTC']);
      r = await send(port, '/ed/x');
      assert.deepEqual([r.status, r.body], [403, tykBody('API has expired, please check documentation or contact administrator')]);
      r = await send(port, '/ev/x');
      assert.deepEqual([r.status, r.headers['x-svc-api-expires']], [200, undefined], "a not-versioned API's expired version only stops being announced");
      r = await send(port, '/two/x');
      assert.deepEqual([r.status, r.body], [403, tykBody('No default API version for this non-versioned API found')]);
      r = await send(port, '/amb/x');
      assert.deepEqual([r.status, r.body], [403, tykBody('Ambiguous default API version for this non-versioned API')]);
    } finally {
      await engine.stop();
    }
  });

  it('versions as separate APIs (definition.enabled, OAS info.versioning): the base hands a version to its API, which runs its own checks', async () => {
    const child = (id: string, more: Def = {}, paths: Def = {}): Def => ({
      ...classicDef(id, `${up.target()}/child`, { internal: true, ...more }, paths),
    });
    const oasDef = (id: string, ext: Def): Def => ({
      openapi: '3.0.3',
      info: { title: id, version: '1' },
      paths: {},
      'x-svc-api-gateway': {
        info: { id, name: id, state: { active: true } },
        upstream: { url: up.target() },
        server: { listenPath: { value: `/${id}/`, strip: true } },
        ...ext,
      },
    });
    const { port, engine } = await definitionGateway({
      'base.json': classicDef('base', up.target(), {
        definition: {
          enabled: true,
          name: 'v1',
          default: 'v1',
          location: 'header',
          key: 'x-api-version',
          strip_versioning_data: true,
          versions: { v2: 'kid', v3: 'missing' },
        },
      }),
      'kid.json': child('kid', {}, { black_list: [{ path: '/blocked', method: 'GET' }] }),
      'baseu.json': {
        ...classicDef('baseu', up.target(), {
          definition: {
            enabled: true,
            name: 'v1',
            default: 'self',
            location: 'url',
            strip_versioning_data: true,
            fallback_to_default: true,
            versions: { v2: 'kid', v9: 'nothing' },
          },
        }),
        proxy: { listen_path: '/baseu/', target_url: up.target(), strip_listen_path: false },
      },
      'nodef.json': classicDef('nodef', up.target(), {
        definition: { enabled: true, name: 'v1', location: 'header', key: 'x-api-version', versions: { v2: 'kid' } },
      }),
      'ob-oas.json': oasDef('ob', {
        info: {
          id: 'ob',
          name: 'ob',
          state: { active: true },
          versioning: {
            enabled: true,
            name: 'v1',
            default: 'v1',
            location: 'url-param',
            key: 'ver',
            versions: [{ name: 'v2', id: 'oc' }],
            stripVersioningData: true,
          },
        },
      }),
      'oc-oas.json': oasDef('oc', { info: { id: 'oc', name: 'oc', state: { active: true, internal: true } }, upstream: { url: `${up.target()}/oaschild` } }),
    });
    try {
      let r = await send(port, '/base/x');
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /x'], 'the default is the base itself');
      r = await send(port, '/base/x', { 'x-api-version': 'v2' });
      assert.deepEqual([r.status, r.upstream?.line, r.upstream?.headers['x-api-version']], [200, 'GET /child/x', undefined], "v2's API, the version stripped");
      r = await send(port, '/base/blocked', { 'x-api-version': 'v2' });
      assert.deepEqual([r.status, r.body], [403, tykBody('Requested endpoint is forbidden')], "v2's API's own black list");
      for (const v of ['v3', 'v4']) {
        r = await send(port, '/base/x', { 'x-api-version': v });
        assert.deepEqual([r.status, r.body, r.upstream], [404, NO_SUCH, undefined], `${v}: no such API (Tyk's 404 here)`);
      }
      r = await send(port, '/kid/x');
      assert.deepEqual([r.status, r.body], [404, 'Not Found'], 'an internal API is not routed by its listen path');
      r = await send(port, '/baseu/v2/x');
      assert.deepEqual(
        [r.status, r.upstream?.line],
        [200, 'GET /child/baseu/x'],
        'the base keeps its listen path (strip_listen_path false), the version segment goes',
      );
      r = await send(port, '/baseu/v9/x');
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /baseu/x'], 'fallback_to_default to the base (self)');
      r = await send(port, '/nodef/x');
      assert.deepEqual([r.status, r.body], [403, NOT_FOUND]);
      r = await send(port, '/ob/x?ver=v2&a=1');
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /oaschild/x?a=1']);
      r = await send(port, '/ob/x');
      assert.deepEqual([r.status, r.upstream?.line], [200, 'GET /x']);
      r = await send(port, '/oc/x');
      assert.equal(r.status, 404);
    } finally {
      await engine.stop();
    }
  });

  it('a key reaches only the versions its access rights list (or the default one, with fallback_to_default)', async () => {
    const keyed = (id: string, definition: Def) =>
      versioned(id, definition, { v1: {}, v2: {} }, { default_version: 'v1' }, { use_keyless: false, auth: { auth_header_name: 'Authorization' } });
    const { port, engine } = await definitionGateway({
      'k.json': keyed('k', { location: 'header', key: 'x-api-version' }),
      'kf.json': keyed('kf', { location: 'header', key: 'x-api-version', fallback_to_default: true }),
    });
    try {
      const rights = { k: { api_id: 'k', versions: ['v1'] }, kf: { api_id: 'kf', versions: ['v1'] } };
      const created = await call(port, 'POST', '/svc/keys/create', {
        headers: { 'x-svc-authorization': 'test-secret' },
        body: JSON.stringify({ rate: 100, per: 1, quota_max: -1, access_rights: rights }),
      });
      const key = (JSON.parse(created.body) as { key: string }).key;
      let r = await send(port, '/k/x', { authorization: key });
      assert.equal(r.status, 200, 'the default version, listed');
      r = await send(port, '/k/x', { authorization: key, 'x-api-version': 'v2' });
      assert.deepEqual([r.status, r.body], [403, tykBody('Access to this API has been disallowed')]);
      r = await send(port, '/kf/x', { authorization: key, 'x-api-version': 'v2' });
      assert.equal(r.status, 200, 'with fallback_to_default, a key listing the default version reaches every version (Tyk reads it so)');
    } finally {
      await engine.stop();
    }
  });
});
