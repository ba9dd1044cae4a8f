import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RoutePattern } from './route-pattern.js';
import { Router } from './router.js';

describe('path patterns', () => {
  it('matches exact paths, prefixes and {param} segments with optional regexes', () => {
    assert.deepEqual(new RoutePattern('/post').match('/post'), {});
    assert.equal(new RoutePattern('/post').match('/post/x'), undefined);
    assert.deepEqual(new RoutePattern('/api/').match('/api/a/b'), {});
    const p = new RoutePattern('/u/{id}/f/{n:[0-9]{2}}');
    assert.deepEqual(p.match('/u/a%20b/f/42'), { id: 'a b', n: '42' });
    assert.equal(p.match('/u/a/f/4'), undefined);
    assert.equal(p.staticPrefix, '/u/');
    assert.throws(() => new RoutePattern('/u/{id'), /unclosed/);
    assert.throws(() => new RoutePattern('nope'), /must start/);
  });

  it('matches a parameter regex with RE2: a hostile path against a backtracking pattern answers at once', () => {
    // As a backtracking regex, (a+)+b on 40 a's and no b would not finish within the test's life.
    const p = new RoutePattern('/x/{v:(a+)+b}');
    assert.equal(p.match(`/x/${'a'.repeat(40)}!`), undefined);
    assert.deepEqual(p.match('/x/aab'), { v: 'aab' });
    assert.throws(() => new RoutePattern('/x/{v:(?<=a)b}'), /./, 'RE2 refuses what it cannot run in linear time');
  });
});

describe('Router', () => {
  it('answers the route of a method, 405 with the methods a path takes, undefined for no path', () => {
    const r = new Router<string>().add(['GET', 'HEAD'], '/ping', 'ping').add('POST', '/u/{id}', 'post user').add('DELETE', '/u/{id}', 'delete user');
    const ping = r.find('GET', '/ping');
    assert.ok(ping?.found);
    assert.equal(ping.value, 'ping');
    const user = r.find('DELETE', '/u/a%2Fb');
    assert.ok(user?.found);
    assert.deepEqual({ value: user.value, params: user.params }, { value: 'delete user', params: { id: 'a/b' } });
    const put = r.find('PUT', '/u/x');
    assert.ok(put && !put.found);
    assert.deepEqual(put.allowed, ['POST', 'DELETE']);
    assert.equal(r.find('GET', '/nope'), undefined);
    assert.throws(() => r.add('GET', '/ping', 'again'), /already/);
  });

  it('takes the most specific pattern: exact, then the longest static part, a parameter before a subtree; no fall-through on the method', () => {
    const r = new Router<string>()
      .add('*', '/', 'root')
      .add('*', '/a/', 'a subtree')
      .add('GET', '/a/{id}', 'a id')
      .add(['GET', 'POST'], '/a/oas', 'a oas')
      .add('*', '/a/b/', 'b subtree');
    const value = (m: string, p: string) => {
      const f = r.find(m, p);
      return f?.found ? f.value : f && { found: false, allowed: f.allowed };
    };
    assert.equal(value('GET', '/a/oas'), 'a oas');
    assert.deepEqual(value('DELETE', '/a/oas'), { found: false, allowed: ['GET', 'POST'] }, 'not /a/{id}');
    assert.equal(value('GET', '/a/x'), 'a id');
    assert.deepEqual(value('PUT', '/a/x'), { found: false, allowed: ['GET'] });
    assert.equal(value('PUT', '/a/x/y'), 'a subtree');
    assert.equal(value('GET', '/a/b/c'), 'b subtree');
    assert.equal(value('GET', '/z'), 'root');
    assert.ok(r.remove('/a/b/'));
    assert.equal(value('GET', '/a/b/c'), 'a subtree');
  });

  it('with trailingSlash ignore, /a/ and /a are one path; with decodeParams false, parameters stay as given', () => {
    const r = new Router<string>({ trailingSlash: 'ignore', decodeParams: false }).add('GET', '/api/agents/', 'list').add('GET', '/api/agents/{id}', 'one');
    assert.equal((r.find('GET', '/api/agents') as { value: string }).value, 'list');
    assert.equal((r.find('GET', '/api/agents/') as { value: string }).value, 'list');
    const one = r.find('GET', '/api/agents/a%20b/');
    assert.ok(one?.found);
    assert.deepEqual(one.params, { id: 'a%20b' });
  });
});
