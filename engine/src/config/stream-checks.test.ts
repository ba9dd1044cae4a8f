/**
 * Whole-stream checks (`registerStreamCheck`): `defineStream` (what `engine -c` and streams mode
 * use) refuses a config a check finds a problem in, placed at the line of the config path it
 * names; a valid config passes; components see their stream as `ctx.stream`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../errors.js';
import { registerProcessor } from '../plugin/registry.js';
import { buildStream, defineStream } from '../streams/stream-builder.js';
import '../testing/test-plugin.js';
import { f } from './spec.js';
import { registerStreamCheck, type StreamShape } from './stream-checks.js';

let seen: StreamShape | undefined;
let builtWith: StreamShape | undefined;

registerProcessor('test_needs_partner', {
  summary: 'a processor that needs a test_partner after it (tests)',
  config: f.object({}),
  factory: (_conf, ctx) => {
    builtWith = ctx.stream;
    return { process: (batch) => [batch] };
  },
});
registerProcessor('test_partner', { summary: 'the partner (tests)', config: f.object({}), factory: () => ({ process: (batch) => [batch] }) });

registerStreamCheck('test', (stream) => {
  seen = stream;
  const types = stream.processors.map((p) => p.type);
  const at = types.indexOf('test_needs_partner');
  if (at < 0 || types.indexOf('test_partner', at) > at) return [];
  return [{ path: `root.pipeline.processors.${at}`, message: 'test_needs_partner needs a test_partner after it: add one' }];
});

const yaml = (processors: string) => `input:\n  test_source: { count: 1 }\npipeline:\n  threads: 1\n  processors:\n${processors}output:\n  test_sink: {}\n`;

describe('stream checks', () => {
  it('a problem refuses the config at the line of the path it names', async () => {
    await assert.rejects(defineStream({ yaml: yaml('    - test_partner: {}\n    - test_needs_partner: {}\n'), file: 'p.yaml' }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(err.issues, [{ file: 'p.yaml', line: 7, col: 7, message: 'test_needs_partner needs a test_partner after it: add one' }]);
      return true;
    });
    assert.equal(seen?.processors.length, 2);
    assert.equal(seen?.input.type, 'test_source');
  });

  it('a config that passes is defined, and its components see the stream as ctx.stream', async () => {
    const def = await defineStream({ yaml: yaml('    - test_needs_partner: {}\n    - test_partner: {}\n'), file: 'p.yaml' });
    const stream = await buildStream(def);
    assert.deepEqual(
      builtWith?.processors.map((p) => p.type),
      ['test_needs_partner', 'test_partner'],
    );
    assert.equal(builtWith?.output.type, 'test_sink');
    await stream.stop(1000);
  });
});
