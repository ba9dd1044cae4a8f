import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { registry } from '../plugin/registry.js';
import { registerCoreComponents } from '../runtime/core-components.js';
import '../testing/test-plugin.js';
import { applySets, parseConfig, validateConfig } from './load.js';
import { parseDuration } from './duration.js';
import { substituteEnv } from './env.js';

registerCoreComponents();

/** Lints YAML; the test components stand in for the default stdin/stdout (not loaded here). */
function lint(yaml: string, env: Record<string, string> = {}): string[] {
  if (!/^input:/m.test(yaml)) yaml += 'input:\n  test_source: {}\n';
  if (!/^output:/m.test(yaml)) yaml += 'output:\n  test_sink: {}\n';
  const parsed = parseConfig(yaml, 'p.yaml', env);
  return validateConfig(parsed, registry()).issues.map((i) => `${i.file}:${i.line}:${i.col} ${i.message}`);
}

describe('config lint', () => {
  it('accepts a valid config with no issues', () => {
    assert.deepEqual(lint('input:\n  test_source: { count: 3 }\noutput:\n  test_sink: {}\n'), []);
  });

  it('reports an unknown field with its position and a suggestion', () => {
    const issues = lint('input:\n  test_source:\n    cuont: 3\noutput:\n  test_sink: {}\n');
    assert.equal(issues.length, 1);
    assert.match(issues[0]!, /^p\.yaml:3:5 field cuont not expected at root.input\.test_source; did you mean count\?/);
  });

  it('refuses a config that is not a mapping, with a clear message', () => {
    const { issues } = validateConfig(parseConfig('- input: {}\n- output: {}\n', 'p.yaml'), registry());
    assert.deepEqual(
      issues.map((i) => `${i.line}:${i.col} ${i.message}`),
      ['1:1 a config must be a YAML object (input:, pipeline:, output:, ...)', '1:1 expected an object at root, got an array'],
    );
  });

  it('reports a wrong type', () => {
    const [issue] = lint('input:\n  test_source:\n    count: lots\n');
    assert.match(issue!, /^p\.yaml:3:12 expected an integer at root.input\.test_source\.count, got the string "lots"/);
  });

  it('reports a bad enum value with the allowed values', () => {
    const [issue] = lint('input:\n  test_source: {}\noutput:\n  broker:\n    pattern: fan_in\n    outputs: []\n');
    assert.match(issue!, /^p\.yaml:5:14 invalid value "fan_in" at root.output\.broker\.pattern: expected one of fan_out, fan_out_fail_fast/);
  });

  it('reports a missing required field', () => {
    const [issue] = lint('input:\n  test_source: {}\noutput:\n  broker:\n    pattern: fan_out\n');
    assert.match(issue!, /field outputs is required \(root\.output\.broker\.outputs\)/);
  });

  it('reports an unknown component type with a suggestion and the plugin hint', () => {
    const [issue] = lint('input:\n  test_sourse: {}\n');
    assert.match(issue!, /^p\.yaml:2:3 unknown input type "test_sourse" at root.input; did you mean test_source\?; if it comes from a plugin/);
  });

  it('reports duplicate labels and malformed labels', () => {
    const issues = lint(
      'input:\n  label: a\n  test_source: {}\npipeline:\n  processors:\n    - label: a\n      noop_missing: {}\n    - label: Bad-Label\n      test_split: {}\n',
    );
    assert.ok(
      issues.some((i) => /^p\.yaml:6:14 duplicate label "a": already used at root.input/.test(i)),
      issues.join('\n'),
    );
    assert.ok(issues.some((i) => /label "Bad-Label" .* lowercase/.test(i)));
  });

  it('reports a component naming two types', () => {
    const [issue] = lint('input:\n  test_source: {}\n  broker: { inputs: [] }\n');
    assert.match(issue!, /names two input types \(test_source and broker\)/);
  });

  it('reports YAML syntax errors with positions', () => {
    const issues = lint('input:\n  test_source: {count: 3\n');
    assert.ok(issues.length >= 1);
    assert.match(issues[0]!, /^p\.yaml:\d+:\d+ YAML syntax error/);
  });

  it('reports an env var without a default and substitutes defaults', () => {
    const issues = lint('input:\n  test_source:\n    name: ${NAME}\n    count: ${COUNT:4}\noutput:\n  test_sink: {}\n');
    assert.equal(issues.length, 1);
    assert.match(issues[0]!, /^p\.yaml:3:11 environment variable NAME is not set/);
    const parsed = parseConfig('input:\n  test_source:\n    count: ${COUNT:4}\n', 'p.yaml', {});
    const { config } = validateConfig(parsed, registry());
    assert.equal((config.input.config as { count: number }).count, 4);
  });

  it('validates durations and thread counts', () => {
    const issues = lint('shutdown_timeout: soon\npipeline:\n  threads: 0\ninput:\n  test_source: {}\noutput:\n  test_sink: {}\n');
    assert.equal(issues.length, 2);
    assert.match(issues[0]!, /invalid duration "soon"/);
    assert.match(issues[1]!, /threads must be -1/);
  });

  it('fills defaults: stdin-less default input is named, threads -1, shutdown 20s', () => {
    const parsed = parseConfig('input:\n  test_source: {}\noutput:\n  test_sink: {}\n', 'p.yaml', {});
    const { config } = validateConfig(parsed, registry());
    assert.equal(config.pipeline.threads, -1);
    assert.equal(config.shutdown_timeout, '20s');
    assert.equal(config.http.address, '0.0.0.0:4195');
    assert.equal(config.input.path, 'root.input');
    assert.deepEqual(config.input.config, {
      name: 'src',
      count: 10,
      batch_size: 1,
      fail_connects: 0,
      auto_replay_nacks: true,
      traceparent: '',
      hold: false,
      fail_at_end: '',
      concurrency: 1,
    });
  });

  it('applies -s overrides before validation', () => {
    const parsed = parseConfig('input:\n  test_source: { count: 3 }\noutput:\n  test_sink: {}\n', 'p.yaml', {});
    applySets(parsed, ['input.test_source.count=7', 'pipeline.threads=2']);
    const { config, issues } = validateConfig(parsed, registry());
    assert.deepEqual(issues, []);
    assert.equal((config.input.config as { count: number }).count, 7);
    assert.equal(config.pipeline.threads, 2);
  });
});

describe('env substitution (see env.test.ts)', () => {
  it('substitutes, defaults, and escapes', () => {
    const r = substituteEnv('a: ${A}\nb: ${B:x y}\nc: ${{C}}\nd: ${! meta("k") }', { A: '1' });
    assert.equal(r.text, 'a: 1\nb: x y\nc: ${C}\nd: ${! meta("k") }');
    assert.deepEqual(r.problems, []);
  });
});

describe('durations', () => {
  it('parses Go-style durations', () => {
    assert.equal(parseDuration('1s'), 1000);
    assert.equal(parseDuration('1m30s'), 90_000);
    assert.equal(parseDuration('250ms'), 250);
    assert.equal(parseDuration('1.5h'), 5_400_000);
    assert.equal(parseDuration(''), 0);
    assert.throws(() => parseDuration('5 seconds'), /invalid duration/);
  });
});
