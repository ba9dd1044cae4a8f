/**
 * The hub's web page in a real headless Chromium (Debian's chromium, installed by
 * scripts/services.sh, driven by playwright-core): log in with the one-time password, change it,
 * make one agent with the page's onboarding (its agent-config.yaml run as handed out) and one
 * over REST, see both go ACTIVE, press ReSync, watch the progress, see the APIs appear, search them.
 * SVC_HUB_SCREENSHOT=path keeps the screenshot (the README's docs/hub.png is made so).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { freePort } from '@svc/engine/testing';
import { startGateway, svcInstance, writeAgentYaml, writeHubYaml } from '../testing/fixtures.js';
import { accessKey, login, rest } from '../testing/hub-client.js';
import { engine } from '../testing/processes.js';

const CHROMIUM = '/usr/bin/chromium';
const dir = mkdtempSync(join(tmpdir(), 'svc-hub-page-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Polls `check` (Playwright locators, run without eval: the page's Content-Security-Policy
 * forbids evaluating strings, so waitForFunction with a string cannot run there).
 */
async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the hub web page in headless Chromium', () => {
  it('logs in, forces the password change, shows two agents, and ReSync brings the APIs', { timeout: 180_000 }, async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: scripts/services.sh up installs Debian's chromium`);
    const [httpPort, grpcPort, gwPort, probeA, probeB] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const base = `http://127.0.0.1:${httpPort}`;
    const hubFile = writeHubYaml(dir, httpPort, grpcPort);
    const gateway = await startGateway(dir, gwPort);
    const hub = engine(['hub', '-c', hubFile], { cwd: dir });
    const oneTime = (await hub.waitFor(/admin password \(shown once; change it at first login\): (\S+)/))[1]!;
    await hub.waitFor(/hub listening/);

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(base);
      // The one-time password logs in but must be changed first; a short one is refused.
      await page.fill('#password', oneTime);
      await page.click('#login-form button');
      await page.waitForSelector('#change', { state: 'visible' });
      assert.equal(await page.isVisible('#app'), false);
      await page.fill('#new', 'short');
      await page.click('#change-form button');
      await until('the password change error', async () => ((await page.textContent('#change-error')) ?? '') !== '');
      const newPassword = 'a-long-new-password-2';
      await page.fill('#new', newPassword);
      await page.click('#change-form button');
      await page.waitForSelector('#app', { state: 'visible' });
      assert.equal(await page.textContent('#who'), 'admin');
      // The old password no longer logs in.
      assert.equal((await rest(base, 'POST', '/api/login/', { body: { username: 'admin', password: oneTime } })).status, 401);

      // Two agents, made over REST with a key of the new password's session, each reading the gateway.
      const key = await accessKey(base, await login(base, newPassword));
      const license = (await rest<{ license: string }>(base, 'POST', '/api/licenses/', { key, body: { sub: 'page', days: 1 } })).body.license;
      const agents = [];
      {
        const name = 'core-agent';
        const { id } = (await rest<{ id: string }>(base, 'POST', '/api/agents/', { key, body: { name } })).body;
        const { token } = (await rest<{ token: string }>(base, 'POST', '/api/auth/token/', { key, body: { agent_id: id } })).body;
        const file = writeAgentYaml(dir, name, { grpcPort, token, license, probePort: probeB, instance: svcInstance(`${name}-gw`, gwPort) });
        agents.push(engine(['agent', '-c', file], { cwd: dir }));
      }
      // The other from the page's onboarding: the file it hands out runs as it is (the gateway's secret from the environment).
      await page.fill('#onboard-name', 'edge-agent');
      await page.selectOption('#onboard-type', 'svc');
      await page.fill('#onboard-address', `http://127.0.0.1:${gwPort}`);
      await page.fill('#onboard-interval', '');
      await page.click('#onboard-form button');
      await page.waitForSelector('#onboard-result', { state: 'visible' });
      const yaml = await page.inputValue('#agent-config');
      assert.doesNotMatch(yaml, /syncInterval|gw-secret/);
      const onboarded = join(dir, 'edge-agent.yaml');
      writeFileSync(onboarded, yaml.replace('port: 5959', `port: ${probeA}`));
      agents.push(engine(['agent', '-c', onboarded], { cwd: dir, env: { GATEWAY_SECRET: 'gw-secret' } }));
      for (const a of agents) await a.waitFor(/waiting for sync requests/);

      // The page refreshes its agents: both rows, ACTIVE.
      await until('two ACTIVE agents', async () => (await page.locator('#agents tr').count()) === 2 && (await page.locator('#agents td.ACTIVE').count()) === 2);
      assert.deepEqual((await page.locator('#agents tr td:first-child').allTextContents()).sort(), ['core-agent', 'edge-agent']);
      assert.equal(await page.locator('#apis tr').count(), 0);

      await page.click('#resync');
      await until('the ReSync to finish', async () => (await page.textContent('#progress')) === '2/2 agent(s) done, 6 API(s)', 60_000);
      await until('six APIs', async () => (await page.locator('#apis tr').count()) === 6);
      const names = await page.locator('#apis tr td:first-child').allTextContents();
      assert.deepEqual(names.sort(), ['Gold tier', 'Gold tier', 'catalog API', 'catalog API', 'payments API', 'payments API']);

      await page.fill('#search', 'catalog');
      await until('two APIs found', async () => (await page.locator('#apis tr').count()) === 2);
      await page.fill('#search', '');
      await until('six APIs again', async () => (await page.locator('#apis tr').count()) === 6);

      const shot = process.env.SVC_HUB_SCREENSHOT ?? join(dir, 'hub.png');
      await page.screenshot({ path: shot, fullPage: true });
      assert.deepEqual([...readFileSync(shot).subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      for (const a of agents) assert.equal(await a.stop(), 0, a.out());
    } finally {
      await browser.close();
    }
    for (const p of [hub, gateway]) assert.equal(await p.stop(), 0, p.out());
  });
});
