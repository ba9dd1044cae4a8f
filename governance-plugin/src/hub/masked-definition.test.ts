/** What GET /api/apis/{id}/ shows of a definition: secrets masked by their field's name and in URLs, everything else as stored. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringifyJson } from '@svc/engine';
import { parsedDefinition } from './definition-changes.js';
import { maskedDefinition, maskedText, secretHeader, secretParam } from './masked-definition.js';

describe('masked definition', () => {
  it('masks secret-named fields and URL passwords, and keeps the rest as written', () => {
    const text = JSON.stringify({
      api_id: 'a',
      auth_header_name: 'Authorization',
      jwt_source: 'c2VjcmV0',
      proxy: { target_url: 'http://user:pw-123@up:8080/x', listen_path: '/a/' },
      config_data: { client_secret: 'cs', Password: 'p', api_key: 'k', token: 't', region: 'eu', tokens_used: 3 },
      global_headers: { Authorization: 'Bearer abc', 'X-Trace': 'on' },
      basic_auth: { password: '' },
      upstream_certificates: { '*': 'cert-id' },
      private_key: ['one', 'two'],
    }).replace('"tokens_used":3', '"tokens_used":12345678901234567890');
    const shown = stringifyJson(maskedDefinition(parsedDefinition(text)));
    assert.equal(
      shown,
      JSON.stringify({
        api_id: 'a',
        auth_header_name: 'Authorization',
        jwt_source: 'xxxxx',
        proxy: { target_url: 'http://user:xxxxx@up:8080/x', listen_path: '/a/' },
        config_data: { client_secret: 'xxxxx', Password: 'xxxxx', api_key: 'xxxxx', token: 'xxxxx', region: 'eu', tokens_used: 3 },
        global_headers: { Authorization: 'xxxxx', 'X-Trace': 'on' },
        basic_auth: { password: '' },
        upstream_certificates: { '*': 'cert-id' },
        private_key: ['xxxxx', 'xxxxx'],
      }).replace('"tokens_used":3', '"tokens_used":12345678901234567890'),
    );
  });

  it('shows text that is not JSON as a string, its URL passwords masked', () => {
    assert.equal(maskedDefinition(parsedDefinition('not json http://u:secret@h/')), 'not json http://u:xxxxx@h/');
  });

  it('tells credential headers and query parameters by name, any case, and leaves look-alikes', () => {
    for (const name of [
      'Authorization',
      'proxy-authorization',
      'COOKIE',
      'Set-Cookie',
      'X-Api-Key',
      'Api-Key',
      'apikey',
      'X-Auth-Token',
      'X-Access-Token',
      'x-svc-authorization',
      'X-Client-Secret',
      'X-Db-Password',
      'X-Key',
    ])
      assert.ok(secretHeader(name), name);
    for (const name of ['Content-Type', 'Keep-Alive', 'X-Author', 'X-Trace', 'X-Request-Source', 'Accept', 'X-Forwarded-For'])
      assert.ok(!secretHeader(name), name);
    for (const name of [
      'api_key',
      'apikey',
      'key',
      'token',
      'access_token',
      'accessToken',
      'sig',
      'signature',
      'secret',
      'password',
      'client_secret',
      'X-Amz-Signature',
    ])
      assert.ok(secretParam(name), name);
    for (const name of ['page', 'region', 'keyword', 'monkey', 'design']) assert.ok(!secretParam(name), name);
    assert.equal(maskedText('/hook?team=ops&api%5Fkey=k1&sig=s#x'), '/hook?team=ops&api%5Fkey=xxxxx&sig=xxxxx#x');
    assert.equal(maskedText('no query, a key=value pair'), 'no query, a key=value pair');
  });
});
