/**
 * Benthos' inputs that wrap inputs (`sequence`, `read_until`), run on both engines: the same
 * YAML gives the same messages on svc and Benthos, and the stream ends where Benthos' does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { benthosMissing, runBoth } from './testing/benthos-peer.js';

// Benthos logs to stdout and may print a batch's messages out of order: compared as sorted JSON.
const messages = (out: string) =>
  out
    .trim()
    .split('\n')
    .filter((l) => l && !l.startsWith('level='))
    .map((l) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(l) as Record<string, unknown>).sort())))
    .sort();

describe('sequence and read_until on svc and Benthos', () => {
  it('reads each child to its end in turn; read_until stops at its check (restarting its child) and marks the final message', async (t) => {
    const { svc, benthos } = await runBoth(`
input:
  sequence:
    inputs:
      - read_until:
          check: this.n >= 3
          input:
            generate:
              interval: ""
              mapping: 'root = {"n": count("a")}'
      - read_until:
          restart_input: true
          check: count("b") >= 5
          input:
            generate:
              count: 2
              interval: ""
              mapping: 'root = {"b": count("c")}'
      - generate:
          count: 1
          interval: ""
          mapping: 'root = {"status":"finished"}'
pipeline:
  processors:
    - mapping: 'root = this.merge({"final": @benthos_read_until | "no"})'
output:
  stdout: {}
`);
    assert.equal(svc.code, 0, svc.stderr);
    const got = messages(svc.stdout);
    assert.deepEqual(
      got,
      messages(
        [
          { n: 1, final: 'no' },
          { n: 2, final: 'no' },
          { n: 3, final: 'final' },
          ...[1, 2, 3, 4].map((b) => ({ b, final: 'no' })),
          { b: 5, final: 'final' },
          { status: 'finished', final: 'no' },
        ]
          .map((m) => JSON.stringify(m))
          .join('\n'),
      ),
    );
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.equal(benthos.code, 0, benthos.stderr);
    assert.deepEqual(got, messages(benthos.stdout));
  });

  it('read_until idle_timeout ends an input that has nothing more to give', async (t) => {
    const { svc, benthos } = await runBoth(`
input:
  read_until:
    idle_timeout: 300ms
    input:
      generate:
        interval: 1h
        mapping: 'root = {"n": count("idle")}'
output:
  stdout: {}
`);
    assert.equal(svc.code, 0, svc.stderr);
    assert.deepEqual(messages(svc.stdout), ['{"n":1}']);
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.deepEqual(messages(svc.stdout), messages(benthos.stdout));
  });

  it('read_until without check or idle_timeout refuses to start, with Benthos words', async (t) => {
    const { svc, benthos } = await runBoth(`
input:
  read_until:
    input:
      generate: { count: 1, interval: "", mapping: 'root = 1' }
output:
  drop: {}
`);
    assert.notEqual(svc.code, 0);
    assert.match(svc.stderr, /it is required to set either check or idle_timeout/);
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.notEqual(benthos.code, 0);
    assert.match(benthos.stderr + benthos.stdout, /it is required to set either check or idle_timeout/);
  });
});
