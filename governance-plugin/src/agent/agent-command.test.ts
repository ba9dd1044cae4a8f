/**
 * `engine agent` as a user runs it, a real process: a malformed config or a bad license stops it
 * with a clear message and exit 1 (no secret echoed); with no hub to reach it keeps running, says
 * what it is waiting for, and its probe answers /health 200 and /live 503.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort, waitFor } from '@svc/engine/testing';
import { GOVERNANCE_FEATURE, issueLicense, newIssuerKey } from '../license/license.js';
import { svcInstance, writeAgentYaml } from '../testing/fixtures.js';
import { engine } from '../testing/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-agent-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const issuer = newIssuerKey();
const TOKEN = 'svcagent.secret-token-value';

async function agentWith(license: string, probePort = 0, grpcPort = 9) {
  const file = writeAgentYaml(dir, `agent-${probePort}`, { grpcPort, token: TOKEN, license, probePort, instance: svcInstance('gw', 9) });
  return engine(['agent', '-c', file], { cwd: dir });
}

describe('engine agent', () => {
  it('refuses a malformed config with file:line:col and exit 1', async () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, `licenseKey: x\ngovernanceDashboard:\n  server:\n    url: http://hub:443\n  auth:\n    token: ${TOKEN}\ninstances: {}\n`);
    const p = engine(['agent', '-c', file], { cwd: dir });
    assert.equal(await p.exited, 1);
    assert.match(p.out(), new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:4:10 governanceDashboard\\.server\\.url must be host:port`));
    assert.match(p.out(), /:7:12 expected an array at instances, got an object/);
    assert.doesNotMatch(p.out(), /secret-token-value/);
  });

  for (const [what, license, message] of [
    ['an expired license', issueLicense(issuer, 'acme', 60, [GOVERNANCE_FEATURE], Date.now() - 3600_000), /license invalid: license expired at \d{4}-/],
    [
      'a license without the governance feature',
      issueLicense(issuer, 'acme', 3600, ['gateway']),
      /license invalid: license does not include the \\"governance\\" feature/,
    ],
    [
      'a tampered license',
      issueLicense(issuer, 'acme', 3600).replace(/\.([^.]{4})/, '.AAAA'),
      /license invalid: license key (signature is invalid|is malformed)/,
    ],
    ['a license that is not one', 'not-a-license', /license invalid: license key is malformed/],
  ] as const) {
    it(`stops on ${what}: a clear message and exit 1`, async () => {
      const p = await agentWith(license);
      assert.equal(await p.exited, 1);
      assert.match(p.out(), message);
      assert.doesNotMatch(p.out(), /agent started/);
    });
  }

  it('keeps running when the hub cannot be reached, says what it waits for, and is live but not ready', async () => {
    const [probePort, grpcPort] = await Promise.all([freePort(), freePort()]);
    const p = await agentWith(issueLicense(issuer, 'acme', 3600), probePort, grpcPort);
    await p.waitFor(/health probe server started/);
    await p.waitFor(new RegExp(`waiting for the hub at 127\\.0\\.0\\.1:${grpcPort}`));
    assert.equal((await fetch(`http://127.0.0.1:${probePort}/health`)).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${probePort}/live`)).status, 503);
    // Still there a few retries later.
    await waitFor('another retry', async () => ((p.out().match(/waiting for the hub at/g) ?? []).length >= 2 ? true : undefined), 20_000);
    assert.equal(p.child.exitCode, null);
    assert.doesNotMatch(p.out(), /secret-token-value/);
    assert.equal(await p.stop(), 0, p.out());
  });
});
