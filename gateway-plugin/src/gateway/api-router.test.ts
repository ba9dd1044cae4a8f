import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiRouter, listenPathLength, upstreamPathOf } from './api-router.js';
import { cleanPath, parseTarget } from '../kernel/request-target.js';
import { apiSpec } from './test-support.js';

describe('ApiRouter', () => {
  const router = new ApiRouter([
    apiSpec('root', '/'),
    apiSpec('foo', '/foo'),
    apiSpec('foobar', '/foo/bar/'),
    apiSpec('off', '/off', { active: false }),
    apiSpec('user', '/users/{id}/orders'),
  ]);

  it('the longest listen path that covers the path wins', () => {
    assert.equal(router.route('/foo')?.id, 'foo');
    assert.equal(router.route('/foo/x')?.id, 'foo');
    assert.equal(router.route('/foo/bar/')?.id, 'foobar');
    assert.equal(router.route('/foo/bar/baz')?.id, 'foobar');
    // `/foo/bar/` does not cover `/foo/bar`: `/foo` does.
    assert.equal(router.route('/foo/bar')?.id, 'foo');
    // gorilla/mux's PathPrefix: a listen path covers a longer segment too (Tyk's TestListener:
    // `/sample` answers `/samplefoo`).
    assert.equal(router.route('/foobar')?.id, 'foo');
    assert.equal(router.route('/users/7/orders/1')?.id, 'user');
    assert.equal(router.route('/users/7/ordersx')?.id, 'user');
    assert.equal(router.route('/users/7')?.id, 'root');
  });

  it("enable_strict_routes: a listen path answers itself and what is under it, else 404 (Tyk's TestListenerWithStrictRoutes)", () => {
    const strict = new ApiRouter([apiSpec('root', '/'), apiSpec('sample', '/sample'), apiSpec('slash', '/s/'), apiSpec('user', '/u/{id}/o')], {
      customDomains: false,
      hostname: '',
      strictRoutes: true,
    });
    assert.equal(strict.route('/sample')?.id, 'sample');
    assert.equal(strict.route('/sample/')?.id, 'sample');
    assert.equal(strict.route('/sample/foo')?.id, 'sample');
    // Routed to `/sample`, which refuses it: not handed on to `/`.
    assert.equal(strict.route('/samplefoo'), undefined);
    // A trailing slash or a {name} part keeps the listen path as a prefix.
    assert.equal(strict.route('/s/x')?.id, 'slash');
    assert.equal(strict.route('/u/7/ox')?.id, 'user');
    assert.equal(strict.route('/other')?.id, 'root');
  });

  it('an API with active: false is routed, as Tyk v5.14.0 serves it', () => {
    assert.equal(router.route('/off/x')?.id, 'off');
    assert.equal(new ApiRouter([apiSpec('off', '/off', { active: false })]).route('/off')?.id, 'off');
  });

  it('no API: undefined', () => {
    assert.equal(new ApiRouter([apiSpec('a', '/a')]).route('/b'), undefined);
  });

  it("Tyk's listen path length: a {name} segment counts as its slash", () => {
    assert.equal(listenPathLength('/foo/bar'), 8);
    assert.equal(listenPathLength('/users/{id}/orders'), 3 + 5 + 6);
  });

  it('strips the listen path when asked, leaving a leading slash', () => {
    const strip = apiSpec('a', '/api');
    assert.equal(upstreamPathOf(strip, '/api/users', '/api/users'), '/users');
    assert.equal(upstreamPathOf(strip, '/api', '/api'), '/');
    assert.equal(upstreamPathOf(apiSpec('b', '/api/'), '/api/x%20y', '/api/x y'), '/x%20y');
    assert.equal(upstreamPathOf(apiSpec('c', '/api', { stripListenPath: false }), '/api/users', '/api/users'), '/api/users');
    assert.equal(upstreamPathOf(apiSpec('d', '/u/{id}'), '/u/7/x', '/u/7/x'), '/x');
  });
});

describe('parseTarget', () => {
  it('splits path and query', () => {
    assert.deepEqual(parseTarget('/a/b?x=1&y'), { kind: 'ok', rawPath: '/a/b', path: '/a/b', query: 'x=1&y' });
    assert.deepEqual(parseTarget('http://h:1/a?q'), { kind: 'ok', rawPath: '/a', path: '/a', query: 'q' });
  });

  it('a path that is not clean is redirected to its clean form, as gorilla/mux does', () => {
    assert.deepEqual(parseTarget('/api/../admin?x=1'), { kind: 'redirect', location: '/admin?x=1' });
    assert.deepEqual(parseTarget('/api/%2e%2e/admin'), { kind: 'redirect', location: '/admin' });
    assert.deepEqual(parseTarget('/api%2F..%2Fadmin'), { kind: 'redirect', location: '/admin' });
    assert.deepEqual(parseTarget('//a//b/'), { kind: 'redirect', location: '/a/b/' });
    assert.deepEqual(parseTarget('/a/./b'), { kind: 'redirect', location: '/a/b' });
  });

  it('an encoded slash routes as a slash; a bad escape is refused', () => {
    assert.deepEqual(parseTarget('/api%2Fusers'), { kind: 'ok', rawPath: '/api%2Fusers', path: '/api/users', query: '' });
    assert.deepEqual(parseTarget('/a%zz'), { kind: 'bad' });
    assert.deepEqual(parseTarget('*'), { kind: 'bad' });
  });

  it('cleanPath keeps a trailing slash', () => {
    assert.equal(cleanPath(''), '/');
    assert.equal(cleanPath('/a/b/../'), '/a/');
    assert.equal(cleanPath('/..'), '/');
    // Names that only start with dots are not `.` or `..` segments.
    assert.equal(cleanPath('/a/.well-known/..b'), '/a/.well-known/..b');
    assert.equal(cleanPath('/a/b/.'), '/a/b');
    assert.equal(cleanPath('/a/b/..'), '/a');
  });
});
