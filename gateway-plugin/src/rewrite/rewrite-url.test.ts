/** The rewriter against Tyk's own cases (gateway/mw_url_rewrite_test.go at v5.14.0) and Tyk's rules. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RewriteTrigger, UrlRewriteRule } from '../apis/api-spec.js';
import { NO_REFERENCES } from '../refs/references.js';
import type { ContextData } from '../kernel/context-data.js';
import { rewriteUrl } from './rewrite-url.js';
import type { TriggerInput } from './triggers.js';

const rule = (matchPattern: string, rewriteTo: string, triggers: RewriteTrigger[] = []): UrlRewriteRule => ({
  path: '/',
  method: '',
  matchPattern,
  rewriteTo,
  triggers,
});
const input = (more: Partial<TriggerInput> = {}): TriggerInput => ({
  headers: {},
  query: new URLSearchParams(),
  path: '/',
  sessionMeta: undefined,
  body: undefined,
  context: () => ({}),
  ...more,
});
const run = (r: UrlRewriteRule, url: string, i: Partial<TriggerInput> = {}, context: ContextData = {}) =>
  rewriteUrl(r, url, input({ path: url.split('?')[0]!, ...i, context: () => context }), {}, NO_REFERENCES);

describe('URL rewrite: the basic trigger (Tyk’s table)', () => {
  const cases: Array<[string, string, string, string, string]> = [
    ['Encoded', '/test/payment-intents', '/change/to/me', '/test/payment%2Dintents', '/change/to/me'],
    ['MatchEncodedChars', '^(.+)%2[Dd](.+)$', '/change/to/me', '/test/payment%2Dintents', '/change/to/me'],
    ['Straight', '/test/straight/rewrite', '/change/to/me', '/test/straight/rewrite', '/change/to/me'],
    ['OneVal', 'test/val/(.*)', 'change/to/$1', '/test/val/VALUE', 'change/to/VALUE'],
    ['OneVal Special Case', 'test/val/(.*)', '/test/val/$1', '/test/val/VALUE%2C', '/test/val/VALUE%2C'],
    ['ThreeVals', '/test/val/(.*)/space/(.*)/and/then/(.*)', '/change/to/$1/$2/$3', '/test/val/ONE/space/TWO/and/then/THREE', '/change/to/ONE/TWO/THREE'],
    ['Reverse', '/test/val/(.*)/space/(.*)/and/then/(.*)', '/change/to/$3/$2/$1', '/test/val/ONE/space/TWO/and/then/THREE', '/change/to/THREE/TWO/ONE'],
    ['Missing', '/test/val/(.*)/space/(.*)/and/then/(.*)', '/change/to/$1/$2', '/test/val/ONE/space/TWO/and/then/THREE', '/change/to/ONE/TWO'],
    ['QS', '(.*)', '$1&newParam=that', '/foo/bar?param1=this', '/foo/bar?param1=this&newParam=that'],
    ['QS2', '/test/val/(.*)/space/(.*)/and/then(.*)', '/change/to/$2/$1$3', '/test/val/ONE/space/TWO/and/then?param1=this', '/change/to/TWO/ONE?param1=this'],
  ];
  for (const [name, pattern, to, url, want] of cases) {
    it(name, async () => assert.equal(await run(rule(pattern, to), url), want));
  }

  it('does nothing when the basic pattern does not match, even if a trigger would fire (rule 1)', async () => {
    const t: RewriteTrigger = { on: 'any', rules: { header: [{ key: 'X-Test', matchRx: 'hello', reverse: false }] }, rewriteTo: '/triggered' };
    assert.equal(await run(rule('^/nope', '/basic', [t]), '/x', { headers: { 'x-test': 'hello' } }), undefined);
  });

  it('a catastrophic-backtracking pattern on a long input answers at once (RE2)', async () => {
    const long = `/${'a'.repeat(50_000)}b`;
    assert.equal(await run(rule('^/(a+)+$', '/never'), long), undefined);
    assert.equal(await run(rule('^/((a|aa)+)+b$', '/yes'), long), '/yes');
  });
});

describe('URL rewrite: advanced triggers', () => {
  const header = (on: 'all' | 'any', rules: Array<[string, string, boolean?]>, to: string): RewriteTrigger => ({
    on,
    rules: { header: rules.map(([key, matchRx, reverse]) => ({ key, matchRx, reverse: reverse === true })) },
    rewriteTo: to,
  });

  it('a header trigger fires and exposes its match and groups as context variables', async () => {
    const r = rule('(.*)', '/basic', [header('any', [['X-Test', 'hello-(\\w+)']], '/change/to/me/$svc_context.trigger-0-X-Test-0-0')]);
    assert.equal(await run(r, '/x', { headers: { 'x-test': 'hello-world' } }), '/change/to/me/world');
  });

  it('header names written with underscores match the hyphenated header', async () => {
    const r = rule('(.*)', '/basic', [header('any', [['x_test', 'hello']], '/to/$svc_context.trigger-0-X-Test-0')]);
    assert.equal(await run(r, '/x', { headers: { 'x-test': 'hello' } }), '/to/hello');
  });

  it('all needs every rule, any one; reverse passes when the pattern does not match', async () => {
    const all = rule('(.*)', '/basic', [
      header(
        'all',
        [
          ['X-Test', 'hello'],
          ['X-Other', 'bar'],
        ],
        '/all',
      ),
    ]);
    assert.equal(await run(all, '/x', { headers: { 'x-test': 'hello' } }), '/basic');
    assert.equal(await run(all, '/x', { headers: { 'x-test': 'hello', 'x-other': 'bar' } }), '/all');
    const rev = rule('(.*)', '/basic', [
      header(
        'all',
        [
          ['X-Test', 'hello'],
          ['X-Other', 'w.*', true],
        ],
        '/reversed',
      ),
    ]);
    assert.equal(await run(rev, '/x', { headers: { 'x-test': 'hello', 'x-other': 'bar' } }), '/reversed');
    assert.equal(await run(rev, '/x', { headers: { 'x-test': 'hello', 'x-other': 'wow' } }), '/basic');
  });

  it('triggers are tried in order; the first that fires wins (rule 3)', async () => {
    const r = rule('(.*)', '/basic', [
      header('any', [['X-A', 'no']], '/first'),
      header('any', [['X-A', 'yes']], '/second'),
      header('any', [['X-A', 'y']], '/third'),
    ]);
    assert.equal(await run(r, '/x', { headers: { 'x-a': 'yes' } }), '/second');
  });

  it('query, path part, session metadata, request context and payload locations', async () => {
    const t = (rules: RewriteTrigger['rules'], to: string): RewriteTrigger => ({ on: 'all', rules, rewriteTo: to });
    const q = rule('(.*)', '/basic', [t({ query: [{ key: 'mode', matchRx: '^(fast|slow)$', reverse: false }] }, '/q/$svc_context.trigger-0-mode-0')]);
    assert.equal(await run(q, '/x?mode=fast', { query: new URLSearchParams('mode=fast') }), '/q/fast');
    const p = rule('(.*)', '/basic', [t({ pathPart: [{ key: 'id', matchRx: '^user-(\\d+)$', reverse: false }] }, '/users/$svc_context.trigger-0-id-0-0')]);
    assert.equal(await run(p, '/api/user-42/profile'), '/users/42');
    const s = rule('(.*)', '/basic', [t({ sessionMeta: [{ key: 'tier', matchRx: 'gold', reverse: false }] }, '/gold/$svc_meta.region')]);
    assert.equal(await run(s, '/x', { sessionMeta: { tier: 'gold', region: 'eu west' } }), '/gold/eu+west');
    assert.equal(await run(s, '/x'), '/basic', 'no session: the session rule does not pass');
    const c = rule('(.*)', '/basic', [t({ requestContext: [{ key: 'remote_addr', matchRx: '^127\\.', reverse: false }] }, '/local')]);
    assert.equal(await run(c, '/x', {}, { remote_addr: '127.0.0.1' }), '/local');
    const b = rule('(.*)', '/basic', [
      t({ payload: [{ key: 'payload', matchRx: '"action":\\s*"(\\w+)"', reverse: false }] }, '/act/$svc_context.trigger-0-payload-0-0'),
    ]);
    assert.equal(await run(b, '/x', { body: '{"action": "ship"}' }), '/act/ship');
  });

  it('an unknown variable becomes empty; a URL value is kept unescaped', async () => {
    const r = rule('(.*)', '$svc_meta.upstream/$svc_context.nothing', []);
    assert.equal(await run(r, '/x', { sessionMeta: { upstream: 'http://other:8080' } }), 'http://other:8080/');
  });
});
