import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { percentEncode, signatureBase } from './oauth1.js';

describe('oauth (1.0a) signing', () => {
  it('builds the signature base string of RFC 5849 §3.4.1.1', () => {
    const url = new URL('http://EXAMPLE.COM:80/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b');
    const params: Array<[string, string]> = [
      ...url.searchParams,
      ...new URLSearchParams('c2&a3=2+q'),
      ['oauth_consumer_key', '9djdj82h48djs9d2'],
      ['oauth_token', 'kkk9d7dh3k39sjv7'],
      ['oauth_signature_method', 'HMAC-SHA1'],
      ['oauth_timestamp', '137131201'],
      ['oauth_nonce', '7d8f3e4a'],
    ];
    assert.equal(
      signatureBase('post', url, params),
      'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7',
    );
  });

  it('percent-encodes as RFC 3986 (unreserved characters only are left)', () => {
    assert.equal(percentEncode("a b!*'()~-._"), 'a%20b%21%2A%27%28%29~-._');
  });
});
