// A config with a very large map lints completely (the yaml package's own duplicate-key check
// made this quadratic: a 300 000-key map never finished) and its errors keep their line:col.
// Speed is measured in bench/config-lint.mjs, not asserted here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { registry } from '../plugin/registry.js';
import { registerCoreComponents } from '../runtime/core-components.js';
import '../testing/test-plugin.js';
import { parseConfig, validateConfig } from './load.js';

registerCoreComponents();

const KEYS = 100_000;

/** `logger.static_fields` (a free-form map of strings) with `KEYS` keys; line of key i is i + 4. */
function bigConfig(lineFor: (i: number) => string): string {
  const lines = ['input:', '  test_source: {}', 'logger:', '  static_fields:'];
  for (let i = 0; i < KEYS; i++) lines.push(lineFor(i));
  lines.push('output:', '  test_sink: {}');
  return lines.join('\n') + '\n';
}

describe('large config', () => {
  it(`lints a ${KEYS}-key map and reports a wrong value near its end at its line:col`, () => {
    const bad = KEYS - 7;
    const yaml = bigConfig((i) => (i === bad ? `    field_${i}: [not, a, string]` : `    field_${i}: "value ${i}"`));
    const { config, issues } = validateConfig(parseConfig(yaml, 'big.yaml', {}), registry());
    assert.deepEqual(
      issues.map((i) => `${i.file}:${i.line}:${i.col} ${i.message}`),
      [`big.yaml:${bad + 5}:${`    field_${bad}: `.length + 1} expected a string at root.logger.static_fields.field_${bad}, got an array`],
    );
    const fields = config.logger.static_fields as Record<string, string>;
    assert.equal(Object.keys(fields).length, KEYS);
    assert.equal(fields[`field_${KEYS - 1}`], `value ${KEYS - 1}`);
  });

  it(`reports a key written twice in a ${KEYS}-key map at the second one's line:col`, () => {
    const dup = KEYS - 3;
    const yaml = bigConfig((i) => `    field_${i === dup ? 10 : i}: plain`);
    const issues = validateConfig(parseConfig(yaml, 'big.yaml', {}), registry()).issues.map((i) => `${i.file}:${i.line}:${i.col} ${i.message}`);
    assert.deepEqual(issues, [`big.yaml:${dup + 5}:5 YAML syntax error: Map keys must be unique ("field_10" is written twice)`]);
  });

  it('reads a double-quoted value the same whether or not it has escapes', () => {
    const yaml = 'input:\n  test_source:\n    name: "a \\"b\\" \\u00e9\\n"\noutput:\n  test_sink:\n    name: "plain \'q\' # not a comment"\n';
    const { config, issues } = validateConfig(parseConfig(yaml, 'q.yaml', {}), registry());
    assert.deepEqual(issues, []);
    assert.equal((config.input.config as { name: string }).name, 'a "b" é\n');
    assert.equal((config.output.config as { name: string }).name, "plain 'q' # not a comment");
  });

  it('refuses a second YAML document with its position', () => {
    const issues = validateConfig(parseConfig('input:\n  test_source: {}\n---\noutput:\n  test_sink: {}\n', 'two.yaml', {}), registry()).issues;
    assert.ok(
      issues.some((i) => i.line === 3 && /one YAML document/.test(i.message)),
      JSON.stringify(issues),
    );
  });
});
