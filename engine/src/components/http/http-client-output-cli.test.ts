/**
 * End to end through the `engine` CLI: stdin (1,000 lines, one transaction per chunk of lines)
 * → http_client → a real upstream on loopback that fails for a while. Every line must arrive,
 * none that got a 2xx twice, in order at max_in_flight 1, and the run must exit 0 without a
 * MaxListenersExceededWarning.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { upstream } from './test-support.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const ENGINE = join(ROOT, 'node_modules/.bin/engine');
const dir = mkdtempSync(join(tmpdir(), 'svc-http-client-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the engine on `config` with `input` as stdin; resolves with its exit code and stderr (bounded: killed after 60 s). */
function run(config: string, input: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(ENGINE, ['-c', config], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stderr += d.toString()));
    const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(kill);
      resolve({ code, stderr });
    });
    child.stdin.end(input);
  });
}

/**
 * An upstream that answers 500 while `failing(n)` says so for the n-th request, else 200; it
 * counts each body's 2xx answers, keeps the order of 2xx'd bodies and the most requests open.
 */
async function flakyUpstream(failing: (n: number, body: string) => boolean) {
  const ok = new Map<string, number>();
  const order: string[] = [];
  let open = 0;
  let most = 0;
  const up = await upstream((_req, body, res, n) => {
    most = Math.max(most, ++open);
    const b = body.toString();
    const fail = failing(n, b);
    res.statusCode = fail ? 500 : 200;
    if (!fail) {
      ok.set(b, (ok.get(b) ?? 0) + 1);
      order.push(b);
    }
    // Answer on the next turn so that concurrent requests overlap as they would upstream.
    setImmediate(() => {
      open--;
      res.end();
    });
  });
  return { up, ok, order, most: () => most };
}

const LINES = Array.from({ length: 1000 }, (_, i) => `line-${i}`);

function configFor(url: string, maxInFlight: number): string {
  const file = join(dir, `http-client-${maxInFlight}.yaml`);
  writeFileSync(
    file,
    `http: { enabled: false }
logger: { level: WARN }
input:
  stdin: {}
output:
  http_client:
    url: ${url}
    max_in_flight: ${maxInFlight}
    retries: 2
    retry_period: 5ms
`,
  );
  return file;
}

describe('http_client output end to end (engine CLI, stdin → upstream that fails for a while)', () => {
  for (const maxInFlight of [1, 64]) {
    it(`max_in_flight ${maxInFlight}: every line delivered once it got a 2xx, never twice${maxInFlight === 1 ? ', in order but for replays, one request at a time' : ''}; exit 0, no MaxListenersExceededWarning`, async () => {
      // An outage for the first 30 requests (the lines it failed nacked and replayed by stdin, alone), then
      // every 50th line fails once more (a partial failure: only it and the lines after it resent).
      const failedOnce = new Set<string>();
      const outage = new Set<string>();
      const flaky = await flakyUpstream((n, body) => {
        if (n <= 30) {
          outage.add(body);
          return true;
        }
        if (Number(body.slice(5)) % 50 === 7 && !failedOnce.has(body)) {
          failedOnce.add(body);
          return true;
        }
        return false;
      });
      const { code, stderr } = await run(configFor(flaky.up.url, maxInFlight), LINES.join('\n') + '\n');
      assert.equal(code, 0, stderr);
      assert.doesNotMatch(stderr, /MaxListenersExceededWarning/);
      const missing = LINES.filter((l) => !flaky.ok.has(l));
      assert.deepEqual(missing, [], 'every line delivered');
      const twice = [...flaky.ok].filter(([, n]) => n > 1).map(([l]) => l);
      assert.deepEqual(twice, [], 'no line that got a 2xx was sent again');
      assert.ok(flaky.most() <= maxInFlight, `at most ${maxInFlight} requests open, saw ${flaky.most()}`);
      // Each line is a transaction of its own (as Benthos reads stdin): a line nacked in the outage
      // is replayed after the lines read with it went on; the others keep their input order.
      if (maxInFlight === 1) {
        const others = (ls: string[]) => ls.filter((l) => !outage.has(l));
        assert.deepEqual(others(flaky.order), others(LINES), 'delivered in input order');
        assert.ok(outage.size > 0 && outage.size < LINES.length);
      }
      assert.ok(failedOnce.size > 0, 'the partial failures happened');
      await flaky.up.close();
    });
  }
});
