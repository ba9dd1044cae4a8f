import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { Grok } from '../parse/grok-compiler.js';
import { DEFAULT_GROK_PATTERNS } from '../parse/grok-patterns.js';
import { bmpOnly, nativeRegExp } from './native-regexp.js';

/** RE2's answer: the groups of the first match, or null. */
function re2(pattern: string, text: string): (string | null)[] | null {
  const m = RE2JS.compile(pattern).matcher(text);
  if (!m.find()) return null;
  return Array.from({ length: m.groupCount() + 1 }, (_, g) => m.group(g));
}

function v8(re: RegExp, text: string): (string | null)[] | null {
  const m = re.exec(text);
  return m === null ? null : Array.from(m, (g) => g ?? null);
}

const LINES = [
  '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326',
  'Mar  7 04:02:16 myhost sshd[1234]: Accepted publickey for root',
  '2 123456789010 eni-1235b8ca 172.31.16.139 9223372036854775807 0.25 ACCEPT',
  '127.0.0.1 GET /index.html?id=42 200 17',
  'fe80::1ff:fe23:4567:890a%eth2 2001:db8::ff00:42:8329 ::ffff:192.0.2.128 1:2:3:4:5:6:7:8',
  'host-1.example.com:8080 a.b.c. user@mail.example.org http://u:p@h.io:81/p/a;x?q=1&r=[2]#f',
  '[Wed Oct 11 14:32:52 2000] [error] [client 127.0.0.1] client denied by server configuration',
  '2003-10-11T22:14:15.003Z 2020-01-02 03:04:05+01:00 01/02/2020 31.12.99-23:59:60 WARNING Crit',
  'C:\\Windows\\system32 /dev/pts/3 /usr/local/bin "quoted \\" string" \'single\' 0x1F -3.5e2',
  '01-23-45-67-89-ab 0123.4567.89ab 01:23:45:67:89:ab 550e8400-e29b-41d4-a716-446655440000',
  'tab\there\vvertical\u00a0nbsp\u2028sep\rcr\nnewline é ü ١٢ Mär Okt',
  '',
  '  ',
  'a\n',
];

describe('Go patterns on V8 RegExp (native-regexp.ts)', () => {
  it('gives re2js answers for every default grok pattern, on log lines and random text', () => {
    const grok = new Grok({ namedOnly: false, removeEmpty: false }, [DEFAULT_GROK_PATTERNS]);
    const alphabet = fc.constantFrom(...'aZ09.:-/\\[] \t\n\r\v\u00a0\u2028"\'%@?=&,_+éÄ١xXfF'.split(''));
    const texts = fc.array(alphabet, { maxLength: 24 }).map((cs) => cs.join(''));
    const random = fc.sample(texts, { numRuns: 60, seed: 38 });
    for (const name of DEFAULT_GROK_PATTERNS.keys()) {
      const source = grok.compile(`%{${name}}`).source;
      const re = nativeRegExp(source);
      assert.ok(re !== undefined, `${name} runs natively`);
      for (const text of [...LINES, ...random]) assert.deepEqual(v8(re, text), re2(source, text), `${name} on ${JSON.stringify(text)}`);
    }
  });

  it("keeps Go's meanings where JavaScript's differ", () => {
    const cases: [string, string][] = [
      ['a.b', 'a\rb a\u2028b a\nb'],
      ['x\\sy', 'x\u00a0y x\vy x\ty'],
      ['x\\Sy', 'x\u00a0y'],
      ['[\\s,]+', 'a \u00a0,\f b'],
      ['\\d+', '١٢ 34'],
      ['\\w+\\b', 'éa_1 b'],
      ['[]a]+', 'x]a]'],
      ['[^]a]+', ']]bc'],
      ['\\x41\\x{42}\\.\\-', 'AB.-'],
      ['a{,3}', 'a{,3}'],
      ['^ab$', 'ab\n'],
      ['\\Aab\\z', 'ab'],
      ['(a|ab)(c|bcd)(d*)', 'abcd'],
      ['x*?y', 'xxy'],
      ['(?:[a-c]{1,3}:){2,5}?', 'ab:c:abc:a:b:c'],
      ['[0-9A-Za-z-]{0,62}\\.', 'abc-def.'],
    ];
    for (const [pattern, text] of cases) {
      const re = nativeRegExp(pattern);
      assert.ok(re !== undefined, pattern);
      assert.deepEqual(v8(re, text), re2(pattern, text), `${pattern} on ${JSON.stringify(text)}`);
    }
  });

  it('leaves to re2js what JavaScript would answer differently', () => {
    // flags, Unicode and POSIX classes, octal and quoting, runes beyond the BMP, a repeated group
    // that may skip its capture (JavaScript clears it each time round) or match empty
    for (const pattern of [
      '(?i)a',
      '(?s).',
      '\\pL',
      '\\p{Greek}',
      '[[:alpha:]]',
      '\\101',
      '\\Qa.b\\E',
      '😀',
      '\\x{1F600}',
      '(?:(a)|b)+',
      '(a*)*',
      '(?:a?)+',
      '[\\S]',
    ])
      assert.equal(nativeRegExp(pattern), undefined, pattern);
  });

  it('a pattern that backtracks catastrophically gives up its match, it does not hang', { timeout: 120_000 }, () => {
    const re = nativeRegExp('(a+)+b');
    assert.ok(re !== undefined);
    // warm it up so that V8 compiles it to machine code, then feed it the exponential case
    for (let i = 0; i < 20_000; i++) assert.equal(re.exec('xaab')?.[0], 'aab');
    assert.equal(re.exec('a'.repeat(10_000) + 'c'), null);
    assert.deepEqual(v8(re, 'a'.repeat(10_000) + 'b'), re2('(a+)+b', 'a'.repeat(10_000) + 'b'));
  });

  it('tells a text whose runes are all single UTF-16 units', () => {
    assert.equal(bmpOnly('abc é ١ \u2028'), true);
    assert.equal(bmpOnly('a 😀'), false);
  });
});
