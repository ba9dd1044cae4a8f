import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { f } from '../config/spec.js';
import { SvcError } from '../errors.js';
import { END_OF_INPUT, type EndOfInput, type Transaction } from '../message/transaction.js';
import { registerInput, registerOutput, registry } from '../plugin/registry.js';
import { testContext } from '../plugin/testing.js';
import { configOf, streamOf } from '../testing/run-config.js';
import { seen } from '../testing/test-plugin.js';

/** Ends the test instead of hanging when the stream never ends (what a lost flush hint does). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Everything the nested input gave the plugin that built it, by name. */
const nestedReads = new Map<string, unknown[]>();

// A plugin input that builds its input from config through ctx.buildInput and passes on what it reads.
registerInput('test_nested_reader', {
  summary: 'Test input: reads a nested input built with ctx.buildInput; records what it was given.',
  config: f.object({ name: f.string(), input: f.component('input') }),
  factory: async (conf, ctx) => {
    const inner = await ctx.buildInput(conf.input);
    const reads: unknown[] = [];
    nestedReads.set(conf.name, reads);
    return {
      connect: () => inner.connect?.() ?? Promise.resolve(),
      async read(): Promise<Transaction | EndOfInput> {
        const r = await inner.read();
        reads.push(r);
        return r;
      },
      close: () => inner.close?.() ?? Promise.resolve(),
    };
  },
});

// A plugin output that writes through an output built with ctx.buildOutput; records the outcomes.
const nestedWrites: string[] = [];
registerOutput('test_nested_writer', {
  summary: 'Test output: writes through a nested output built with ctx.buildOutput.',
  config: f.object({ output: f.component('output') }),
  factory: async (conf, ctx) => {
    const inner = await ctx.buildOutput(conf.output);
    return {
      async write(batch) {
        try {
          await inner.write(batch);
          nestedWrites.push(`delivered ${batch.map((m) => m.text()).join()}`);
        } catch (err) {
          nestedWrites.push(`failed ${batch.map((m) => m.text()).join()}`);
          throw err;
        }
      },
      close: () => inner.close?.() ?? Promise.resolve(),
    };
  },
});

// A plugin output that happens to carry the key the runtime once used to recognise its own sinks.
const written: string[] = [];
registerOutput('test_marked_output', {
  summary: 'Test output: a plain Output carrying Symbol.for("svc.sink").',
  config: f.object({}),
  factory: () => ({
    [Symbol.for('svc.sink')]: true,
    async write(batch) {
      for (const m of batch) written.push(m.text());
    },
  }),
});

describe('plugin views of runtime parts', () => {
  it('a nested input built with ctx.buildInput gives transactions and the end, never a flush hint', async () => {
    // The broker's batching holds the three messages (count 100, no period); the child's replay
    // layer waits for their acks and hints a flush, which must reach the broker's batching but
    // not the plugin that built the broker.
    const s = streamOf(`
input:
  test_nested_reader:
    name: nv1
    input:
      broker:
        inputs: [ { test_source: { name: nv1, count: 3 } } ]
        batching: { count: 100 }
pipeline: { threads: 1 }
output: { test_sink: { name: nv1 } }
`);
    await within(s.run(), 10_000, 'the stream');
    assert.deepEqual(seen.delivered.get('nv1'), [['0', '1', '2']]);
    assert.deepEqual(seen.acks.get('nv1'), { ok: 3, nack: 0 });
    const reads = nestedReads.get('nv1')!;
    assert.equal(reads.at(-1), END_OF_INPUT);
    for (const r of reads.slice(0, -1)) assert.ok(typeof r === 'object' && r !== null && 'batch' in r, `read gave ${String(r)}`);
  });

  it('a nested output built with ctx.buildOutput resolves a write once delivered and rejects one that failed', async () => {
    const s = streamOf(`
input: { test_source: { name: nw1, count: 2 } }
pipeline: { threads: 1 }
output:
  test_nested_writer:
    output: { test_sink: { name: nw1, fail_writes: 1 } }
`);
    await within(s.run(), 10_000, 'the stream');
    assert.equal(nestedWrites[0], 'failed 0', 'the failure came back to the plugin');
    assert.deepEqual(nestedWrites.slice(1).sort(), ['delivered 0', 'delivered 1'], 'each write resolved once delivered (0 by its replay)');
    assert.deepEqual(seen.delivered.get('nw1')!.flat().sort(), ['0', '1']);
    assert.deepEqual(seen.acks.get('nw1'), { ok: 2, nack: 0 });
  });

  it('drives a plugin output as an Output whatever keys it carries (no marker makes it a runtime sink)', async () => {
    const s = streamOf(`
input: { test_source: { name: mk1, count: 3 } }
pipeline: { threads: 1 }
output: { test_marked_output: {} }
`);
    await within(s.run(), 10_000, 'the stream');
    assert.deepEqual(written, ['0', '1', '2']);
    assert.deepEqual(seen.acks.get('mk1'), { ok: 3, nack: 0 });
  });

  it('a broker built by hand from the registry says it is built by the runtime', async () => {
    configOf('input: { test_source: {} }\noutput: { test_sink: {} }\n'); // registers the core components
    for (const kind of ['input', 'output'] as const) {
      const spec = registry().get(kind, 'broker')!.spec;
      await assert.rejects(
        async () => spec.factory({}, testContext({ type: 'broker' })),
        (err: unknown) => err instanceof SvcError && /part of the runtime: build it with ctx\.build(Input|Output)/.test(err.message),
      );
    }
  });
});
