import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GatewayRequest } from '../kernel/request.js';
import { Targets, singleJoiningSlash } from './upstream-url.js';

test("singleJoiningSlash joins with exactly one slash, as Tyk's does", () => {
  assert.equal(singleJoiningSlash('/base', '/a'), '/base/a');
  assert.equal(singleJoiningSlash('/base/', '/a'), '/base/a');
  assert.equal(singleJoiningSlash('/base//', '//a/'), '/base/a/');
  assert.equal(singleJoiningSlash('/base', 'a'), '/base/a');
  assert.equal(singleJoiningSlash('/base/', ''), '/base');
  assert.equal(singleJoiningSlash('/base/', '/'), '/base');
  assert.equal(singleJoiningSlash('', '/a/b'), '/a/b');
  assert.equal(singleJoiningSlash('', ''), '');
});

const req = (upstreamPath: string, query = '', upstreamUrl?: string): GatewayRequest => ({
  gateway: 'g',
  apiId: 'a',
  method: 'GET',
  path: upstreamPath,
  upstreamPath,
  query,
  headers: {},
  remoteAddress: '127.0.0.1',
  tls: false,
  upstreamUrl,
});

test('locate: target path and query first, then the request path and query', () => {
  const t = new Targets();
  assert.equal(t.locate(req('/a/b', 'x=1'), 'http://up:81/base/?t=1').path, '/base/a/b?t=1&x=1');
  assert.equal(t.locate(req('/a/b', ''), 'http://up:81/base/?t=1').path, '/base/a/b?t=1');
  assert.equal(t.locate(req('', 'x=1'), 'http://up:81/base/').path, '/base?x=1');
  assert.equal(t.locate(req('', ''), 'http://up:81').path, '/');
  assert.equal(t.locate(req('/', ''), 'http://up:81/').path, '/');
  assert.equal(t.locate(req('/%2F..%2f/x', ''), 'http://up:81').path, '/%2F..%2f/x', 'the raw path goes as it came');
  const at = t.locate(req('/a'), 'https://user:pw@up.example:8443/v1');
  assert.equal(at.target.origin, 'https://up.example:8443');
  assert.equal(at.target.host, 'up.example:8443');
  assert.equal(at.path, '/v1/a');
  // The same target is parsed once.
  assert.equal(t.locate(req('/b'), 'https://user:pw@up.example:8443/v1').target, at.target);
});

test('locate: a rewrite to a full URL is used as it is', () => {
  const at = new Targets().locate(req('/ignored', 'q=1', 'http://other:9000/new/path?z=2'), 'http://up:81/base');
  assert.equal(at.target.origin, 'http://other:9000');
  assert.equal(at.target.host, 'other:9000');
  assert.equal(at.path, '/new/path?z=2');
});

test('a target that is not http(s) is refused', () => {
  assert.throws(() => new Targets().locate(req('/a'), 'ftp://up/'), /not http or https/);
});
