// YAML anchors, aliases and merge keys (which Benthos configs use) in the normalised config,
// and an alias bomb refused with its position instead of being expanded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { f, registerProcessor } from '../index.js';
import { registry } from '../plugin/registry.js';
import { registerCoreComponents } from '../runtime/core-components.js';
import '../testing/test-plugin.js';
import { parseConfig, validateConfig } from './load.js';

registerCoreComponents();
registerProcessor('test_any_doc', {
  summary: 'Test processor: holds a free-form document (an `any` field).',
  config: f.object({ doc: f.any().default(null) }),
  factory: () => ({ process: (batch) => [batch] }),
});

function load(yaml: string) {
  const { config, issues } = validateConfig(parseConfig(yaml, 'a.yaml', {}), registry());
  return { config, issues: issues.map((i) => `${i.file}:${i.line}:${i.col} ${i.message}`) };
}

const SINK = 'output:\n  test_sink: {}\n';

describe('anchors and aliases', () => {
  it('an alias stands for its anchored node: a scalar, a component and a processor list', () => {
    const { config, issues } = load(
      `input:
  broker:
    inputs:
      - &first
        test_source: { name: &n shared, count: 3 }
      - *first
      - test_source: { name: *n }
pipeline:
  processors: &procs
    - test_split: {}
output:
  test_sink: {}
  processors: *procs
`,
    );
    assert.deepEqual(issues, []);
    const inputs = (config.input.config as { inputs: { type: string; config: { name: string; count: number } }[] }).inputs;
    assert.deepEqual(
      inputs.map((i) => [i.type, i.config.name, i.config.count]),
      [
        ['test_source', 'shared', 3],
        ['test_source', 'shared', 3],
        ['test_source', 'shared', 10],
      ],
    );
    assert.deepEqual(
      config.output.processors.map((p) => p.type),
      ['test_split'],
    );
  });

  it('merge keys add the merged maps’ keys that the map does not set itself; earlier merges win', () => {
    const { config, issues } = load(
      `input:
  broker:
    inputs:
      - test_source: &base { name: base, count: 5, batch_size: 2 }
      - test_source:
          <<: *base
          name: merged
      - test_source:
          <<: [ { count: 7 }, *base ]
          fail_connects: 1
${SINK}`,
    );
    assert.deepEqual(issues, []);
    const inputs = (config.input.config as { inputs: { config: Record<string, unknown> }[] }).inputs;
    assert.deepEqual(inputs[1]!.config, {
      name: 'merged',
      count: 5,
      batch_size: 2,
      fail_connects: 0,
      auto_replay_nacks: true,
      traceparent: '',
      hold: false,
      fail_at_end: '',
      concurrency: 1,
    });
    assert.deepEqual(inputs[2]!.config, {
      name: 'base',
      count: 7,
      batch_size: 2,
      fail_connects: 1,
      auto_replay_nacks: true,
      traceparent: '',
      hold: false,
      fail_at_end: '',
      concurrency: 1,
    });
  });

  it('a free-form (any) field gets aliases and merge keys resolved, and __proto__ as an ordinary key', () => {
    const { config, issues } = load(
      `input:
  test_source: {}
pipeline:
  processors:
    - test_any_doc:
        doc:
          a: &a { x: 1, list: [1, 2] }
          b: *a
          c: { <<: *a, x: 2 }
          __proto__: { polluted: true }
${SINK}`,
    );
    assert.deepEqual(issues, []);
    const doc = (config.pipeline.processors[0]!.config as { doc: Record<string, unknown> }).doc;
    assert.deepEqual(doc.b, { x: 1, list: [1, 2] });
    assert.deepEqual(doc.c, { x: 2, list: [1, 2] });
    assert.ok(Object.hasOwn(doc, '__proto__'));
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
    assert.equal((doc as { polluted?: boolean }).polluted, undefined);
  });

  it('errors inside an aliased block are reported at the anchor, and an unknown field through a merge too', () => {
    const { issues } = load(
      `input:
  broker:
    inputs:
      - test_source: &base { cuont: 5 }
      - test_source: { <<: *base, name: b }
${SINK}`,
    );
    assert.deepEqual(issues, [
      'a.yaml:4:30 field cuont not expected at root.input.broker.inputs.0.test_source; did you mean count?',
      'a.yaml:4:30 field cuont not expected at root.input.broker.inputs.1.test_source; did you mean count?',
    ]);
  });

  it('an alias without an anchor, or inside its own anchor, is an error at the alias', () => {
    const { issues } = load(`input:\n  test_source: { name: *nowhere }\npipeline:\n  processors: &p\n    - test_split: {}\n    - *p\n${SINK}`);
    assert.deepEqual(issues, [
      'a.yaml:2:24 alias *nowhere has no anchor &nowhere before it: define the anchor first',
      'a.yaml:6:7 alias *p is inside its own anchor &p: it would expand forever',
    ]);
  });

  it('refuses an alias bomb (billion laughs) at the alias that crosses the bound, without expanding it', () => {
    const levels = 'abcdefghijklmnopqrstuvwxyz'.split('');
    const lines = [`          ${levels[0]}: &${levels[0]} [lol, lol, lol, lol, lol, lol, lol, lol, lol]`];
    for (let i = 1; i < levels.length; i++)
      lines.push(
        `          ${levels[i]}: &${levels[i]} [${Array(9)
          .fill(`*${levels[i - 1]}`)
          .join(', ')}]`,
      );
    const { issues } = load(`input:\n  test_source: {}\npipeline:\n  processors:\n    - test_any_doc:\n        doc:\n${lines.join('\n')}\n${SINK}`);
    // *e stands for 66 430 nodes (9 × *d + its list); the aliases of a–e add 74 718, so the
    // first *e in f (line 12) is where the running total passes 100 000.
    assert.equal(issues.length, 1, issues.join('\n'));
    assert.match(
      issues[0]!,
      /^a\.yaml:12:18 alias \*e expands to 66,430 nodes, and the aliases up to here to 141,148: more than the 100,000 a config may add through aliases \(an alias bomb\?\)/,
    );
  });
});
