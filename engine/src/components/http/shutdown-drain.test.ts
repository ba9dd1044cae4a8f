/**
 * End to end: SIGINT while the output's upstream fails. Whatever the signal time, the engine
 * either delivers everything before `shutdown_timeout` and exits 0, or exits 1 saying how many
 * messages it could not deliver; it never says goodbye with exit 0 over undelivered messages.
 * Real engine processes, a real upstream on loopback, real signals.
 */
import { freePort, EngineProcess, flakyUpstream } from '@svc/engine/testing';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const dir = mkdtempSync(join(tmpdir(), 'svc-drain-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const COUNT = 10;
const LINES = Array.from({ length: COUNT }, (_, i) => `line-${i + 1}`);

type InputKind = 'stdin' | 'file' | 'generate' | 'generate_batched' | 'http_server';

interface Run {
  code: number | null;
  log: string;
  delivered: Set<string>;
  /** http_server only: the status each client got (0 = no answer). */
  statuses: number[];
}

async function runOnce(kind: InputKind, opts: { failMs: number; signalAfterMs: number; shutdownTimeout: string }): Promise<Run> {
  const { up, delivered, firstRequest } = await flakyUpstream(opts.failMs);
  let input: string;
  let stdin: string | undefined;
  let port = 0;
  if (kind === 'stdin') {
    input = 'stdin: { codec: lines }';
    stdin = LINES.join('\n') + '\n';
  } else if (kind === 'file') {
    const f = join(dir, `in-${Date.now()}-${Math.random()}.txt`);
    writeFileSync(f, LINES.join('\n') + '\n');
    input = `file: { paths: [ ${JSON.stringify(f)} ], codec: lines }`;
  } else if (kind === 'generate') {
    input = `generate: { count: ${COUNT}, interval: "", mapping: 'root = "line-" + counter().string()' }`;
  } else if (kind === 'generate_batched') {
    input = `generate: { count: ${COUNT}, batch_size: 5, interval: "", mapping: 'root = "line-" + counter().string()' }`;
  } else {
    port = await freePort();
    input = `http_server: { address: 127.0.0.1:${port}, path: /in, timeout: 30s }`;
  }
  const yaml = `
input:
  ${input}
output:
  http_client:
    url: ${up.url}/out
    verb: POST
    retries: 1
    retry_period: 100ms
shutdown_timeout: ${opts.shutdownTimeout}
http: { enabled: false }
logger: { level: INFO }
`;
  const engine = new EngineProcess(yaml, [], {}, stdin);
  const statuses: number[] = [];
  let clients: Promise<void> | undefined;
  try {
    if (kind === 'http_server') {
      clients = (async () => {
        for (let i = 0; i < 200; i++) {
          try {
            await fetch(`http://127.0.0.1:${port}/ping-not-there`).then((r) => r.arrayBuffer());
            break;
          } catch {
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        await Promise.all(
          LINES.map(async (line, i) => {
            try {
              const r = await fetch(`http://127.0.0.1:${port}/in`, { method: 'POST', body: line });
              await r.arrayBuffer();
              statuses[i] = r.status;
            } catch {
              statuses[i] = 0;
            }
          }),
        );
      })();
    }
    await Promise.race([firstRequest, engine.exited, new Promise((r) => setTimeout(r, 20_000))]);
    await new Promise((r) => setTimeout(r, opts.signalAfterMs));
    const code = await engine.stop(30_000);
    await clients;
    return { code, log: engine.output(), delivered, statuses };
  } finally {
    await up.close();
  }
}

/** The promise a user relies on, whatever the timing. */
function assertNothingSilentlyLost(kind: InputKind, r: Run): void {
  const reported = /Could not deliver (\d+) message\(s\)/.exec(r.log);
  if (kind === 'http_server') {
    // A request is answered 2xx only once its message was delivered; the others get an error.
    LINES.forEach((line, i) => {
      if (r.statuses[i] === 200) assert.ok(r.delivered.has(line), `${line} was answered 200 but never delivered\n${r.log}`);
    });
    if (r.code === 0) {
      LINES.forEach((line, i) => assert.ok(r.delivered.has(line) || r.statuses[i] !== 200, `${line}: exit 0 over an undelivered, acknowledged request`));
    }
    return;
  }
  if (r.code === 0) {
    assert.deepEqual([...r.delivered].sort(), [...LINES].sort(), `exit 0 but not everything was delivered\n${r.log}`);
    assert.equal(reported, null);
    return;
  }
  assert.equal(r.code, 1, r.log);
  assert.ok(reported, `exit 1 without saying what was not delivered\n${r.log}`);
  assert.equal(Number(reported[1]) + r.delivered.size, COUNT, `the count reported plus what arrived must be every message\n${r.log}`);
  assert.doesNotMatch(r.log, /Goodbye/, 'no goodbye over undelivered messages');
}

describe('shutdown drain: SIGINT while the output fails (engine CLI, real upstream)', () => {
  for (const kind of ['stdin', 'file', 'generate', 'http_server'] as InputKind[]) {
    it(`${kind}: an upstream down for good → exit 1 naming every undelivered message, whatever the signal time`, async () => {
      for (const signalAfterMs of [0, 400, 1200]) {
        const r = await runOnce(kind, { failMs: 120_000, signalAfterMs, shutdownTimeout: '1s' });
        assertNothingSilentlyLost(kind, r);
        if (kind !== 'http_server') {
          assert.equal(r.code, 1, `signal at +${signalAfterMs} ms\n${r.log}`);
          assert.match(r.log, new RegExp(`Could not deliver ${COUNT} message\\(s\\)`));
        } else {
          assert.ok(
            r.statuses.every((s) => s !== 200),
            'nothing was delivered, so no client was told 200',
          );
        }
      }
    });

    it(`${kind}: an upstream back within shutdown_timeout → everything delivered, exit 0`, async () => {
      for (const signalAfterMs of [0, 700]) {
        const r = await runOnce(kind, { failMs: 1500, signalAfterMs, shutdownTimeout: '15s' });
        assertNothingSilentlyLost(kind, r);
        if (kind !== 'http_server') {
          assert.equal(r.code, 0, r.log);
          assert.equal(r.delivered.size, COUNT);
        }
      }
    });
  }

  it('a batched input (transactions of 5 messages): the report counts messages, in the pipeline and in all', async () => {
    for (const signalAfterMs of [0, 400]) {
      const r = await runOnce('generate_batched', { failMs: 120_000, signalAfterMs, shutdownTimeout: '1s' });
      assertNothingSilentlyLost('generate_batched', r);
      const line = new RegExp(`Could not deliver ${COUNT} message\\(s\\) within shutdown_timeout \\((\\d+) of them in the pipeline`).exec(r.log);
      assert.ok(line, r.log);
      assert.ok([0, 5, 10].includes(Number(line[1])), `messages in the pipeline come in whole batches of 5: ${line[1]}\n${r.log}`);
    }
  });
});
