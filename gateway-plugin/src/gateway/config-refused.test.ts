/**
 * A svc.conf field svc refuses at load (a Tyk feature it does not implement) in a real engine
 * (issue 36, item 5c): a config error is not a connection error. The engine does not retry
 * "Failed to connect"; it exits 1 with the error, naming the file and the field, in one process
 * and in several (where no child is replaced: its replacement would read the same config).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runGateway, writeGateway } from './engine-run.js';
import { apiSpec, freePort, gatewayConfig } from './test-support.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A gateway dir whose svc.conf turns on `control_api_hostname`, which svc refuses. */
async function refusingGateway(): Promise<{ dir: string; port: number; conf: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gw-refused-'));
  dirs.push(dir);
  const port = await freePort();
  writeGateway(dir, gatewayConfig(port), [apiSpec('open', '/open')]);
  const conf = join(dir, 'svc.conf');
  writeFileSync(conf, JSON.stringify({ ...JSON.parse(readFileSync(conf, 'utf8')), control_api_hostname: 'control.example' }));
  return { dir, port, conf };
}

const REST = 'pipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}';

describe('a svc.conf field svc refuses', () => {
  for (const processes of [1, 2]) {
    it(`with processes: ${processes}, the engine exits 1 with the error (file and field) and retries nothing`, async () => {
      const { dir, port, conf } = await refusingGateway();
      // A retry fails the start at once (the old behaviour retried forever); so does the exit.
      const err = await runGateway(dir, port, REST, { input: `processes: ${processes}`, failOn: /Failed to connect/ }).then(
        () => assert.fail('the gateway started'),
        (e: Error) => e,
      );
      assert.match(err.message, /the engine exited with code 1;/, err.message);
      assert.ok(err.message.includes(`${conf}: control_api_hostname: not supported`), err.message);
      assert.doesNotMatch(err.message, /Failed to connect|retrying/, err.message);
      if (processes > 1) assert.doesNotMatch(err.message, /starting another/, err.message);
    });
  }
});
