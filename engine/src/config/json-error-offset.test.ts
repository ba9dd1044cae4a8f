import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { jsonErrorOffset } from './json-error-offset.js';

test('jsonErrorOffset points at the first character that is not JSON', () => {
  const at = (text: string): string => text.slice(jsonErrorOffset(text));
  assert.equal(at('{"a": x}'), 'x}');
  assert.equal(at('{"a": 1,}'), '}');
  assert.equal(at('{"a" 1}'), '1}');
  assert.equal(at('[1 2]'), '2]');
  assert.equal(at('{"a": [1, {"b": tru}]}'), 'tru}]}');
  assert.equal(at('{"a": "x\ty"}'), '\ty"}');
  assert.equal(at('{"a": 1} extra'), 'extra');
  assert.equal(at('{"a": 01}'), '1}');
  assert.equal(jsonErrorOffset('{"a": [1, 2'), 11, 'an unfinished text: its end');
  assert.equal(jsonErrorOffset(''), 0);
  assert.equal(jsonErrorOffset('['.repeat(100_000)), 100_000, 'deep nesting does not overflow the stack');
});

test('jsonErrorOffset agrees with JSON.parse: valid text has no error offset before its end', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const text = JSON.stringify(v, null, 1);
      assert.equal(jsonErrorOffset(text), text.length);
    }),
    { numRuns: 300 },
  );
});
