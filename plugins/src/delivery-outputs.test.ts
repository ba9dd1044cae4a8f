/**
 * Benthos' outputs that wrap outputs (`fallback`, `retry`, `drop_on`, `reject_errored`), run on
 * both engines: the same YAML prints the same lines on svc and Benthos, and every message ends up
 * either delivered by some output or dropped where the config says so.
 */
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { benthosMissing, runBoth } from './testing/benthos-peer.js';

const generate = (count: number) => `
input:
  generate:
    count: ${count}
    interval: ""
    mapping: 'root = {"n": count("delivery_test")}'
`;

// Benthos logs to stdout: its log lines are left out.
const sorted = (out: string) =>
  out
    .trim()
    .split('\n')
    .filter((l) => l && !l.startsWith('level='))
    .sort();

describe('fallback, retry, drop_on and reject_errored on svc and Benthos', () => {
  it('failed messages fall through reject_errored and an exhausted retry to the dead letter tier, with fallback_error', async (t) => {
    const { svc, benthos } = await runBoth(`${generate(4)}
pipeline:
  threads: 1
  processors:
    - mapping: 'root = if this.n % 2 == 0 { throw("even " + this.n.string()) } else { this }'
output:
  fallback:
    - reject_errored:
        stdout: {}
    - retry:
        max_retries: 2
        backoff:
          initial_interval: 1ms
          max_interval: 2ms
        output:
          reject: 'nope \${! content() }'
    - stdout: {}
      processors:
        - mapping: 'root = {"dead": content().string(), "why": @fallback_error}'
`);
    assert.equal(svc.code, 0, svc.stderr);
    const lines = sorted(svc.stdout);
    assert.deepEqual(lines, [
      '{"dead":"{\\"n\\":2}","why":"message failed to reach a target destination"}',
      '{"dead":"{\\"n\\":4}","why":"message failed to reach a target destination"}',
      '{"n":1}',
      '{"n":3}',
    ]);
    // The retry tried three times (once and two retries) before giving up.
    assert.equal(svc.stderr.match(/Failed to send message: nope \{\\"n\\":2\}.*label=reject/g)?.length, 3, svc.stderr);
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.equal(benthos.code, 0, benthos.stderr);
    assert.deepEqual(lines, sorted(benthos.stdout));
  });

  it('reject_errored alone gives the nack text Benthos gives to the next tier', async (t) => {
    const { svc, benthos } = await runBoth(`${generate(2)}
pipeline:
  threads: 1
  processors:
    - mapping: 'root = throw("bad " + this.n.string())'
output:
  fallback:
    - reject_errored:
        drop: {}
    - stdout: {}
      processors:
        - mapping: 'root = @fallback_error'
`);
    assert.equal(svc.code, 0, svc.stderr);
    const lines = sorted(svc.stdout);
    assert.deepEqual(lines, [
      'rejecting due to failed processing: failed assignment (line 1): bad 1',
      'rejecting due to failed processing: failed assignment (line 1): bad 2',
    ]);
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.deepEqual(lines, sorted(benthos.stdout));
  });

  it('drop_on error acks what its output rejected, and error_patterns drops only the matching errors', async (t) => {
    const { svc, benthos } = await runBoth(`${generate(4)}
output:
  broker:
    pattern: fan_out
    outputs:
      - stdout: {}
      - drop_on:
          error: true
          output:
            reject: always
      - fallback:
          - drop_on:
              error_patterns: [ '^o.d$' ]
              output:
                reject: '\${! if this.n % 2 == 1 { "odd" } else { "even" } }'
          - stdout: {}
            processors:
              - mapping: 'root = "not dropped: " + @fallback_error + " " + this.n.string()'
`);
    assert.equal(svc.code, 0, svc.stderr);
    const lines = sorted(svc.stdout);
    assert.deepEqual(lines, ['not dropped: even 2', 'not dropped: even 4', '{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}']);
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.equal(benthos.code, 0, benthos.stderr);
    assert.deepEqual(lines, sorted(benthos.stdout));
  });

  it('drop_on back_pressure gives up on an output that never answers, with Benthos error text', async (t) => {
    // An HTTP server double that accepts connections and never answers (a stuck upstream).
    const sockets = new Set<Socket>();
    const server = createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const { svc, benthos } = await runBoth(`${generate(2)}
output:
  fallback:
    - drop_on:
        back_pressure: 200ms
        output:
          http_client:
            url: http://127.0.0.1:${port}/stuck
            timeout: 2s
            retries: 0
    - stdout: {}
      processors:
        - mapping: 'root = @fallback_error'
`);
      assert.equal(svc.code, 0, svc.stderr);
      const lines = sorted(svc.stdout);
      assert.deepEqual(lines, ['experienced back pressure beyond: 200ms', 'experienced back pressure beyond: 200ms']);
      if (!benthos) return t.diagnostic(benthosMissing!);
      assert.deepEqual(lines, sorted(benthos.stdout));
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });

  it('fallback with no outputs and drop_on with both error and error_patterns refuse to start, as Benthos does', async (t) => {
    const none = await runBoth(`${generate(1)}\noutput:\n  fallback: []\n`);
    assert.notEqual(none.svc.code, 0);
    assert.match(none.svc.stderr, /attempting to create broker output type with no outputs/);
    const both = await runBoth(`${generate(1)}\noutput:\n  drop_on:\n    error: true\n    error_patterns: [ x ]\n    output:\n      drop: {}\n`);
    assert.notEqual(both.svc.code, 0);
    assert.match(both.svc.stderr, /field 'error_patterns' is ineffective when 'error' is set to `true`/);
    if (!none.benthos || !both.benthos) return t.diagnostic(benthosMissing!);
    assert.notEqual(none.benthos.code, 0);
    assert.match(none.benthos.stderr, /attempting to create broker output type with no outputs/);
    assert.match(both.benthos.stderr, /field 'error_patterns' is ineffective when 'error' is set to `true`/);
  });
});
