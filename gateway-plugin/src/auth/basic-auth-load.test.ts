/**
 * Issue 36 item 4 against a real gateway process: bcrypt off the event loop. While clients send
 * wrong basic-auth passwords, a keyless API on the same gateway keeps answering (the bcrypt work
 * runs on the password pool's threads: the share of the main thread is printed from
 * /proc/<pid>/task as a diagnostic, not judged, since it moves with the load); a remembered
 * success does not hash again, and a user's failed checks are
 * throttled (counted by the gateway's debug lines, Tyk's words: `cache enabled: miss: bcrypt`, ...).
 * Tyk's 401 words are unchanged.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { classicDef, recordingUpstream, tykBody } from '../gateway/definition-fixtures.js';
import { runGateway, writeGateway } from '../gateway/engine-run.js';
import { call, freePort, gatewayConfig } from '../gateway/test-support.js';
import { waitFor } from '@svc/engine/testing';

const up = recordingUpstream();
const dir = mkdtempSync(join(tmpdir(), 'svc-gw-basic-load-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
const AUTH = { 'x-svc-authorization': 'test-secret' };
const DENIED = tykBody('User not authorised');

/** CPU ticks (user + system) of `/proc/<pid>/<rest>` (`stat`: the process; `task/<pid>/stat`: its main thread). */
function ticks(pid: number, rest: string): number {
  const fields = readFileSync(`/proc/${pid}/${rest}`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const count = (log: string, words: string): number => log.split(words).length - 1;
/** Each basic-auth check logs one of these debug lines (Tyk's words). */
const CHECK_LINES = ['cache enabled: hit: success', 'cache enabled: miss: bcrypt', 'bcrypt skipped: too many failed checks for this user', 'cache disabled'];

describe('basic authentication under load (issue 36)', () => {
  it('a keyless API keeps answering while wrong passwords are hashed; a remembered success does not hash; failures are throttled', async (t) => {
    const port = await freePort();
    // sha256: Tyk's default murmur32 ignores the last bytes of user0 … user7, one stored key for all.
    writeGateway(dir, { ...gatewayConfig(port), hash_keys: true, hash_key_function: 'sha256' } as ReturnType<typeof gatewayConfig>, []);
    const basicApi = (id: string, more = {}) =>
      classicDef(id, up.target(), { org_id: 'o', use_keyless: false, use_basic_auth: true, name: 'Basic API', ...more });
    writeFileSync(join(dir, 'apps', 'basic.json'), JSON.stringify(basicApi('basic')));
    writeFileSync(join(dir, 'apps', 'nocache.json'), JSON.stringify(basicApi('nocache', { basic_auth: { disable_caching: true } })));
    writeFileSync(join(dir, 'apps', 'open.json'), JSON.stringify(classicDef('open', up.target())));
    const engine = await runGateway(dir, port, 'logger: { level: DEBUG }\npipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}');
    // The checks answered so far; the log, read from the gateway's stderr, can lag its answers: a
    // slice of it is taken once it holds a line for each.
    let checks = 0;
    const check = (path: string, credentials: string, opts: { timeoutMs?: number } = {}) => {
      checks++;
      return call(port, 'GET', path, { headers: { authorization: basic(credentials) }, ...opts });
    };
    const settledLog = () =>
      waitFor('a log line for every check', async () => {
        const log = engine.log();
        return CHECK_LINES.reduce((n, words) => n + count(log, words), 0) >= checks ? log : undefined;
      });
    try {
      const users = Array.from({ length: 8 }, (_, i) => `user${i}`);
      for (const user of [...users, 'okuser']) {
        const session = {
          org_id: 'o',
          rate: 1000,
          per: 1,
          quota_max: -1,
          basic_auth_data: { password: `pw-${user}` },
          access_rights: { basic: { api_id: 'basic', versions: ['Default'] }, nocache: { api_id: 'nocache', versions: ['Default'] } },
        };
        const created = await call(port, 'POST', `/svc/keys/${user}`, { headers: AUTH, body: JSON.stringify(session) });
        assert.equal(created.status, 200, created.body);
      }
      let r = await check('/basic/x', 'okuser:pw-okuser');
      assert.equal(r.status, 200, 'the pool is started by a first check');

      // 8 clients, one user each, 5 wrong passwords each (all hashed: within the throttle), beside a keyless client.
      const cpu0 = ticks(engine.pid, 'stat');
      const main0 = ticks(engine.pid, `task/${engine.pid}/stat`);
      let keyless = 0;
      let stop = false;
      // 40 hashes queued on a loaded machine's pool can take longer than call's default 10 s: the
      // test judges what the gateway answered, not how soon.
      const slow = { timeoutMs: 120_000 };
      const open = (async () => {
        while (!stop) if ((await call(port, 'GET', '/open/x', slow)).status === 200) keyless++;
      })();
      try {
        await Promise.all(
          users.map(async (user) => {
            for (let i = 0; i < 5; i++) {
              const w = await check('/basic/x', `${user}:wrong${i}`, slow);
              assert.deepEqual([w.status, w.body, w.headers['www-authenticate']], [401, DENIED, 'Basic realm="Basic API"']);
            }
          }),
        );
      } finally {
        // Stopped whatever happened, so that a failure above is the one reported.
        stop = true;
        await open;
      }
      const cpu = ticks(engine.pid, 'stat') - cpu0;
      const main = ticks(engine.pid, `task/${engine.pid}/stat`) - main0;
      t.diagnostic(`main thread ${main} of ${cpu} CPU ticks; ${keyless} keyless answers meanwhile`);
      assert.ok(keyless > 0, 'the keyless API answered while the wrong passwords were checked');
      const before = await settledLog();
      assert.equal(count(before, 'cache enabled: miss: bcrypt'), 1 + 40, 'every wrong password was hashed once');

      // A remembered success does not hash; with disable_caching every check does.
      for (let i = 0; i < 10; i++) assert.equal((await check('/basic/x', 'okuser:pw-okuser')).status, 200);
      for (let i = 0; i < 3; i++) assert.equal((await check('/nocache/x', 'okuser:pw-okuser')).status, 200);
      const since = (await settledLog()).slice(before.length);
      assert.deepEqual([count(since, 'cache enabled: hit: success'), count(since, 'cache enabled: miss: bcrypt'), count(since, 'cache disabled')], [10, 0, 3]);

      // A user who failed 5 times in a row: its next wrong passwords fail without hashing, Tyk's 401
      // unchanged. (Fresh failures just before, so that the throttle's window, 10 s after the last
      // failure, holds even on a loaded machine.)
      for (let i = 0; i < 5; i++) {
        r = await check('/basic/x', `user0:fresh${i}`);
        assert.equal(r.status, 401);
      }
      const before2 = await settledLog();
      for (let i = 0; i < 3; i++) {
        r = await check('/basic/x', `user0:again${i}`);
        assert.deepEqual([r.status, r.body], [401, DENIED]);
      }
      // A skipped check logs two lines ('miss: bcrypt', then 'bcrypt skipped'): the second can lag
      // the count settledLog waits for, so the slice is taken once it holds the three skips (a
      // check that hashed instead never logs one, and the wait fails).
      const skipped = (log: string) => count(log.slice(before2.length), 'bcrypt skipped: too many failed checks for this user');
      const after = await waitFor('three skipped checks logged', async () => {
        const log = await settledLog();
        return skipped(log) >= 3 ? log : undefined;
      });
      assert.equal(skipped(after), 3);
    } finally {
      await engine.stop();
    }
  });
});
