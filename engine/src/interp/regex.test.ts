/**
 * User patterns run on RE2 (linear time): a pattern that backtracks catastrophically in a
 * backtracking engine must still finish quickly.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Message } from '../message/message.js';
import { compileMapping } from './index.js';

describe('regular expressions cannot hang the process', () => {
  const input = 'a'.repeat(50_000) + 'b';

  for (const [name, mapping] of [
    ['re_match with a constant pattern', 'root = this.s.re_match("(a+)+$")'],
    ['re_match with a pattern from the message', 'root = this.s.re_match(this.p)'],
    ['re_replace_all', 'root = this.s.re_replace_all("(a|aa)+$", "x").length()'],
    ['re_find_all', 'root = this.s.re_find_all("(a*)*c").length()'],
  ] as const) {
    it(`${name} on 50k "a" + "b" finishes quickly`, () => {
      const msg = new Message(JSON.stringify({ s: input, p: '(a+)+$' }));
      const m = compileMapping(mapping);
      const start = process.hrtime.bigint();
      assert.ok(m.apply(msg, { batch: [msg], index: 0 }));
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      assert.ok(ms < 2000, `took ${ms.toFixed(0)} ms`);
      const out = msg.json();
      if (typeof out === 'boolean') assert.equal(out, false);
    });
  }

  it('uses Go (RE2) syntax: named groups and no backreferences', () => {
    const msg = new Message(JSON.stringify({ s: '2024-05' }));
    assert.ok(compileMapping('root = this.s.re_replace_all("(?P<y>\\\\d{4})-(?P<m>\\\\d{2})", "$m/$y")').apply(msg, { batch: [msg], index: 0 }));
    assert.equal(msg.text(), '05/2024');
    assert.throws(() => compileMapping('root = this.s.re_match("(a)\\\\1")'), /error parsing regexp/);
  });
});
