import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { f } from '../config/spec.js';
import { END_OF_INPUT, type EndOfInput, type Transaction } from '../message/transaction.js';
import { registerInput } from '../plugin/registry.js';
import { streamOf } from '../testing/run-config.js';
import { waitFor } from '../testing/services.js';

/** What the stalling input reports, set by the test. */
let stuck: string | undefined;
let release: (() => void) | undefined;

// A plugin input that is connected, reads nothing until released, and says whether it is stuck.
registerInput('test_stalling_input', {
  summary: 'Test input: connected, reads nothing until released, reports `stuck` as its stall.',
  config: f.object({}),
  factory: () => ({
    connect: () => Promise.resolve(),
    read: () => new Promise<Transaction | EndOfInput>((r) => (release = () => r(END_OF_INPUT))),
    stalled: () => stuck,
  }),
});

describe('an input that is connected but stalled', () => {
  it('is not ready, with the reason it gives, and ready again once it moves', async () => {
    const s = streamOf(`
input: { test_stalling_input: {} }
pipeline: { threads: 1 }
output: { test_sink: { name: stalled } }
`);
    const run = s.run();
    await waitFor('the input to connect', async () => (release !== undefined && s.health().length === 0 ? true : undefined), 10_000, 10);
    stuck = 'partition t/0 has 3 records to read from offset 0 and its fetches delivered none';
    assert.deepEqual(s.health(), [`input root.input (test_stalling_input): ${stuck}`]);
    stuck = undefined;
    assert.deepEqual(s.health(), []);
    release!();
    await run;
  });
});
