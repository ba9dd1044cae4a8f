/**
 * Done as a platform team would do it, every part real: a Tyk Gateway v5.14.0 (classic, OAS, a
 * policy), an svc gateway and moto's AWS API Gateway, one hub, and one agent made from the hub's
 * page in headless Chromium (onboarding: the token and license shown once, a ready
 * agent-config.yaml copied from the page, the svc and AWS instances added to it). The agent syncs
 * on its own schedule (syncInterval), nobody presses ReSync: the page shows the inventory, the
 * sync history, and an API's details with its secrets masked; an API changed on Tyk between two
 * syncs shows which field changed. The same is checked over REST. Where Tyk is not built the
 * test says so and skips.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { chromium, type Page } from 'playwright-core';
import { freePort } from '@svc/engine/testing';
import { startGateway, svcInstance, writeHubYaml } from '../testing/fixtures.js';
import { accessKey, login, rest } from '../testing/hub-client.js';
import { cloudgwInstance, motoAccount, motoUrl, seedMoto } from '../testing/moto.js';
import { engine } from '../testing/processes.js';
import { startTyk, tykBinary, tykClassic, tykOas, TYK_SKIP } from '../testing/tyk.js';

const CHROMIUM = '/usr/bin/chromium';
const dir = mkdtempSync(join(tmpdir(), 'svc-hub-governance-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Polls a check made with Playwright locators (the page's CSP forbids evaluating strings). */
async function until(what: string, check: () => Promise<boolean>, ms = 60_000, shown?: () => Promise<string>): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${shown ? `; ${await shown()}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const cells = (page: Page, table: string, column: number) => page.locator(`#${table} tr td:nth-child(${column})`).allTextContents();

const CLIENT_SECRET = 'orders-client-secret-value';
const UPSTREAM_PASSWORD = 'tyk-upstream-password';
const orders = (target: string) =>
  tykClassic('orders', {
    proxy: { listen_path: '/orders/', target_url: `http://svc-user:${UPSTREAM_PASSWORD}@${target}/`, strip_listen_path: true },
    config_data: { client_secret: CLIENT_SECRET, region: 'eu' },
  });

describe('governance in the page: Tyk, svc and AWS on a schedule', { skip: tykBinary() === undefined ? TYK_SKIP : false }, () => {
  it('onboards an agent from the page; its scheduled syncs fill the inventory, the history and the details', { timeout: 300_000 }, async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: scripts/services.sh up installs Debian's chromium`);
    const [httpPort, grpcPort, gwPort, probePort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const base = `http://127.0.0.1:${httpPort}`;
    const account = motoAccount();
    const [tyk, gateway, aws] = await Promise.all([
      startTyk(dir, {
        classic: [orders('127.0.0.1:9')],
        oas: [tykOas('pets', '2')],
        policies: [{ id: 'gold', name: 'Gold tier', rate: 100, per: 1, access_rights: {} }],
      }),
      startGateway(dir, gwPort),
      seedMoto(account, { rest: ['ledger'], http: ['hooks'] }),
    ]);
    const hub = engine(['hub', '-c', writeHubYaml(dir, httpPort, grpcPort)], { cwd: dir });
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
    let agent;
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
      await page.goto(base);
      await page.fill('#password', oneTime);
      await page.click('#login-form button');
      await page.waitForSelector('#change', { state: 'visible' });
      const password = 'a-long-new-password-3';
      await page.fill('#new', password);
      await page.click('#change-form button');
      await page.waitForSelector('#app', { state: 'visible' });

      // Onboarding: a bad address is refused with the reason; then the agent, shown once.
      await page.fill('#onboard-name', 'platform-agent');
      await page.selectOption('#onboard-type', 'tyk');
      await page.fill('#onboard-address', 'tyk-without-scheme');
      await page.click('#onboard-form button');
      await until('the onboarding error', async () => /gateway's URL/.test((await page.textContent('#onboard-error')) ?? ''));
      assert.equal((await rest<unknown[]>(base, 'GET', '/api/agents/', { key: await accessKey(base, await login(base, password)) })).body.length, 0);
      await page.fill('#onboard-address', tyk.url);
      await page.fill('#onboard-interval', '2s');
      await page.click('#onboard-form button');
      await page.waitForSelector('#onboard-result', { state: 'visible' });
      const yaml = await page.inputValue('#agent-config');
      const token = (await page.textContent('#onboard-token')) ?? '';
      const license = (await page.textContent('#onboard-license')) ?? '';
      assert.match(token, /^svcagent\./);
      assert.match(license, /^svclic1\./);
      assert.ok(yaml.includes(`token: ${token}`) && yaml.includes(`licenseKey: ${license}`), yaml);
      assert.ok(yaml.includes(`url: 127.0.0.1:${grpcPort}`), yaml);
      assert.ok(yaml.includes('syncInterval: 2s'), yaml);
      assert.equal(await page.textContent('#onboard-env'), 'GATEWAY_SECRET');
      await until('the new agent listed', async () => (await cells(page, 'agents', 1)).includes('platform-agent'));

      // The copied file, as a user would extend it: the svc gateway and the AWS account too; the probe on a free port.
      const file = join(dir, 'agent-config.yaml');
      writeFileSync(
        file,
        yaml
          .replace('logLevel: info', `${svcInstance('svc-gateway', gwPort)}\n${cloudgwInstance('aws', account)}\nlogLevel: info`)
          .replace('port: 5959', `port: ${probePort}`),
      );
      agent = engine(['agent', '-c', file], { cwd: dir, env: { GATEWAY_SECRET: tyk.secret, SVC_CLOUDGW_ENDPOINT: motoUrl() } });
      await agent.waitFor(/waiting for sync requests/);

      // No ReSync: the schedule brings 3 Tyk + 3 svc entries and this run's 2 AWS APIs (moto is shared: others' too).
      const expected = ['Gold tier', 'Gold tier', 'catalog API', 'hooks', 'ledger', 'orders API', 'payments API', 'pets API'];
      const listed = async () => {
        const names = await cells(page, 'apis', 1);
        return expected.every((n) => names.filter((x) => x === n).length >= expected.filter((x) => x === n).length);
      };
      const a = agent;
      await until(
        'the scheduled sync to fill the inventory',
        listed,
        60_000,
        async () => `the page lists ${JSON.stringify(await cells(page, 'apis', 1))}; the agent said:\n${a.out()}\nthe hub said:\n${hub.out()}`,
      );
      await until('an ACTIVE agent', async () => (await page.locator('#agents td.ACTIVE').count()) === 1);
      await until('a scheduled sync in the history', async () => (await cells(page, 'syncs', 3)).includes('schedule'));
      const first = (await page.locator('#syncs tr').last().locator('td').allTextContents()).slice(1, 8);
      assert.deepEqual(first.slice(0, 3), ['platform-agent', 'schedule', 'complete']);
      assert.ok(Number(first[3]) >= 8 && first[4] === first[3] && first[5] === '0' && first[6] === '0', `the first sync added everything: ${first.join(' ')}`);

      // The API changes on Tyk between two syncs: its next scheduled sync says what changed.
      const put = await tyk.call('PUT', '/tyk/apis/orders', orders('127.0.0.1:10'));
      assert.equal(put.status, 200, JSON.stringify(put.body));
      await tyk.reload(2);
      // (moto's REST API export carries a new info.version on every call: those show as changed each sync too.)
      await until('a sync that saw the change', async () => {
        for (const r of await page.locator('#syncs tr').all()) if (Number((await r.locator('td').allTextContents())[6]) >= 1) return true;
        return false;
      });
      await page.locator('#apis button', { hasText: 'orders API' }).click();
      await page.waitForSelector('#api-detail', { state: 'visible' });
      assert.equal(await page.textContent('#api-title'), 'orders API (classic)');
      await until(
        'the change of the target URL',
        async () => (await cells(page, 'api-changes', 4)).some((f) => f.includes('proxy.target_url (changed)')),
        60_000,
        async () => `the page shows ${JSON.stringify(await page.locator('#api-changes tr').allTextContents())}; the hub said:\n${hub.out().slice(-2000)}`,
      );
      assert.deepEqual((await cells(page, 'api-changes', 3)).slice(-1), ['added']);
      const shown = (await page.textContent('#api-definition')) ?? '';
      assert.match(shown, /"client_secret": "xxxxx"/);
      assert.match(shown, /"target_url": "http:\/\/svc-user:xxxxx@127\.0\.0\.1:10\/"/);
      assert.match(shown, /"region": "eu"/);
      const html = await page.content();
      for (const secret of [CLIENT_SECRET, UPSTREAM_PASSWORD, tyk.secret]) assert.ok(!html.includes(secret), `the page shows ${secret}`);
      await page.screenshot({ path: process.env.SVC_HUB_SCREENSHOT ?? join(dir, 'hub.png'), fullPage: true });

      // The same over REST.
      const key = await accessKey(base, await login(base, password));
      type Row = { id: string; api_id: string; provider_type: string; kind: string };
      const apis = (await rest<Row[]>(base, 'GET', '/api/apis/?limit=1000', { key })).body;
      const mine = new Set([...aws.rest, ...aws.http]);
      assert.deepEqual(
        apis
          .filter((a) => a.provider_type !== 'cloudgw' || mine.has(a.api_id))
          .map((a) => `${a.provider_type}:${a.kind}:${a.api_id}`)
          .sort(),
        [
          'cloudgw:http:' + aws.http[0],
          'cloudgw:rest:' + aws.rest[0],
          'svc:classic:catalog',
          'svc:classic:payments',
          'svc:policy:policy:gold',
          'tyk:classic:orders',
          'tyk:oas:pets',
          'tyk:policy:policy:gold',
        ].sort(),
      );
      const id = apis.find((a) => a.api_id === 'orders')!.id;
      const detail = await rest<{
        definition: { config_data: Record<string, string> };
        changes: Array<{ change: string; trigger: string; fields: unknown[] }>;
      }>(base, 'GET', `/api/apis/${id}/`, { key });
      assert.equal(detail.status, 200);
      assert.deepEqual(detail.body.definition.config_data, { client_secret: 'xxxxx', region: 'eu' });
      assert.deepEqual(detail.body.changes[0], {
        ...detail.body.changes[0],
        change: 'changed',
        trigger: 'schedule',
        fields: [{ path: 'proxy.target_url', op: 'changed' }],
      });
      assert.equal((await rest(base, 'GET', '/api/apis/0123456789abcdef0123456789abcdef/', { key })).status, 404);
      const history = (await rest<Array<{ agent_name: string; trigger: string; status: string; errors: unknown[] }>>(base, 'GET', '/api/syncs/', { key })).body;
      assert.ok(history.length >= 2);
      assert.ok(history.every((h) => h.agent_name === 'platform-agent' && h.trigger === 'schedule' && h.status === 'complete' && h.errors.length === 0));
      assert.equal(await agent.stop(), 0, agent.out());
    } finally {
      await browser.close();
    }
    for (const p of [hub, gateway]) assert.equal(await p.stop(), 0, p.out());
    await tyk.proc.stop();
  });
});
