/**
 * The Grafana dashboards in deploy/grafana/ (stream.json, gateway.json) against the real
 * Prometheus of scripts/services.sh: a real engine runs the gateway config (a stream too: input,
 * processors, output) on Prometheus' scrape target, traffic goes through it (answers 200 and 400),
 * and every query of every panel, with the dashboard's variables set to that target, must return
 * data: once with timers as summaries (the default) and once as histograms
 * (`use_histogram_timing`), whose latency panels read the `_bucket` series. A panel whose metric
 * was renamed or whose label does not exist fails here. The request panels must also tell the
 * truth: the share of answers that are not 2xx is the share the traffic has.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, serviceAddress, waitFor } from '@svc/engine/testing';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENGINE = join(ROOT, 'engine/dist/cli/main.js');
const PROMETHEUS = serviceAddress('SVC_PROMETHEUS_URL');
const TARGET = serviceAddress('SVC_METRICS_TARGET_ADDRESS');

interface Panel {
  title: string;
  targets: Array<{ expr: string }>;
}

/** The dashboard's variables as Grafana would set them for the scrape target this test runs. */
function resolve(expr: string, job: string): string {
  return expr.replaceAll('$__rate_interval', '1m').replaceAll('$job', job).replaceAll('$instance', TARGET).replaceAll('$stream', '.*').replaceAll('$api', '.*');
}

async function query(promql: string): Promise<unknown[]> {
  const res = await fetch(`${PROMETHEUS}/api/v1/query?query=${encodeURIComponent(promql)}`, { signal: AbortSignal.timeout(5000) });
  const body = (await res.json()) as { status: string; error?: string; data: { result: unknown[] } };
  assert.equal(body.status, 'success', `${promql}: ${body.error}`);
  return body.data.result;
}

const dir = mkdtempSync(join(tmpdir(), 'svc-dashboards-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the gateway config on the scrape target with traffic (half 200, half 401); resolves to its stop and Prometheus' job name. */
async function start(histogram: boolean): Promise<{ stop: () => Promise<void>; job: string }> {
  await waitFor('Prometheus (start it with scripts/services.sh up)', async () => ((await fetch(`${PROMETHEUS}/-/ready`)).ok ? true : undefined), 15_000);
  const gatewayPort = await freePort();
  rmSync(join(dir, 'gateway'), { recursive: true, force: true });
  cpSync(join(ROOT, 'configs/gateway'), join(dir, 'gateway'), { recursive: true });
  for (const api of ['engine.json', 'secure.json']) {
    const p = join(dir, 'gateway/apis', api);
    writeFileSync(p, readFileSync(p, 'utf8').replaceAll('127.0.0.1:4195', TARGET));
  }
  const conf = join(dir, 'gateway/svc.conf');
  writeFileSync(conf, readFileSync(conf, 'utf8').replace('"listen_port": 8080', `"listen_port": ${gatewayPort}`));
  writeFileSync(
    join(dir, 'gateway.yaml'),
    readFileSync(join(ROOT, 'configs/gateway.yaml'), 'utf8').replaceAll('127.0.0.1:4195', TARGET).replace('./configs/gateway/svc.conf', './gateway/svc.conf') +
      (histogram ? 'metrics:\n  prometheus:\n    use_histogram_timing: true\n' : ''),
  );
  // The scrape target's port is fixed (Prometheus' config names it): another test may hold it a while.
  const child = await waitFor(
    `the engine to serve Prometheus' scrape target ${TARGET}`,
    async () => {
      const c = spawn(process.execPath, [ENGINE, '-c', 'gateway.yaml'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
      let log = '';
      c.stderr.on('data', (d: Buffer) => (log += d.toString()));
      const up = await waitFor(
        'the gateway',
        async () => {
          if (c.exitCode !== null) return false;
          const r = await fetch(`http://127.0.0.1:${gatewayPort}/engine/ping`).catch(() => undefined);
          return r?.status === 200 ? true : undefined;
        },
        20_000,
      ).catch((err: unknown) => {
        // Too slow to start (a loaded machine): stopped, so it does not hold the scrape target's port for the next try or past the test.
        c.kill('SIGKILL');
        throw err;
      });
      if (up) return c;
      if (!/EADDRINUSE|in use/.test(log)) throw new Error(`engine exited: ${log}`);
      return undefined;
    },
    60_000,
    1000,
  );
  // Traffic: answered 200 (keyless API, proxied) and 401 (no token), one each, all the while the test runs.
  const traffic = setInterval(() => {
    void fetch(`http://127.0.0.1:${gatewayPort}/engine/ping`).then(
      (r) => r.arrayBuffer(),
      () => undefined,
    );
    void fetch(`http://127.0.0.1:${gatewayPort}/secure/ping`).then(
      (r) => r.arrayBuffer(),
      () => undefined,
    );
  }, 100);
  const stop = async (): Promise<void> => {
    clearInterval(traffic);
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
  };
  const targets = (await (await fetch(`${PROMETHEUS}/api/v1/targets`)).json()) as { data: { activeTargets: Array<{ labels: Record<string, string> }> } };
  const job = targets.data.activeTargets.find((t) => t.labels.instance === TARGET)?.labels.job ?? '';
  if (job === '') await stop();
  assert.notEqual(job, '', `Prometheus scrapes no target ${TARGET}`);
  return { stop, job };
}

const ALERTS = join(ROOT, 'deploy/prometheus');

/** The metric names the alert rules read. */
function alertMetrics(): string[] {
  return [...new Set(readFileSync(join(ALERTS, 'alerts.yml'), 'utf8').match(/\bsvc_\w+/g) ?? [])];
}

describe('alert rules (deploy/prometheus)', () => {
  it('pass promtool check rules and their unit tests (promtool test rules)', () => {
    for (const args of [
      ['check', 'rules', 'alerts.yml'],
      ['test', 'rules', 'alerts.test.yml'],
    ]) {
      const r = spawnSync('promtool', args, { cwd: ALERTS, encoding: 'utf8' });
      assert.equal(r.error, undefined, 'promtool not found: scripts/services.sh installs it (Debian prometheus)');
      assert.equal(r.status, 0, `promtool ${args.join(' ')}: ${r.stdout}${r.stderr}`);
    }
  });
});

function panels(file: string): Panel[] {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana', file), 'utf8')) as { panels: Panel[] };
  assert.ok(dashboard.panels.length > 0);
  return dashboard.panels;
}

for (const histogram of [false, true]) {
  describe(`Grafana dashboards (deploy/grafana) against the real Prometheus, timers as ${histogram ? 'histograms' : 'summaries'}`, { timeout: 180_000 }, () => {
    let run: { stop: () => Promise<void>; job: string } | undefined;
    before(async () => {
      run = await start(histogram);
    });
    after(async () => {
      await run?.stop();
    });

    for (const file of ['stream.json', 'gateway.json']) {
      it(`every panel query of ${file} returns data`, async () => {
        for (const panel of panels(file)) {
          for (const t of panel.targets) {
            const promql = resolve(t.expr, run!.job);
            await waitFor(`data for "${panel.title}": ${promql}`, async () => ((await query(promql)).length > 0 ? true : undefined), 60_000, 500);
          }
        }
      });
    }

    it('every metric the alert rules read is scraped from the engine', async () => {
      // A timer is read both ways (`x{quantile=...}` or `x_bucket`): summaries have no _bucket
      // series, histograms none without it.
      const all = alertMetrics();
      const names = all.filter((n) => (histogram ? !all.includes(n + '_bucket') : !n.endsWith('_bucket')));
      assert.ok(names.length >= 5, names.join());
      for (const name of names) {
        const promql = `count(${name}{job="${run!.job}",instance="${TARGET}"})`;
        await waitFor(`the engine's ${name}: ${promql}`, async () => ((await query(promql)).length > 0 ? true : undefined), 60_000, 500);
      }
    });

    if (!histogram) {
      it("the share of answers that are not 2xx is the traffic's: one in two", async () => {
        const panel = panels('gateway.json').find((p) => p.title === 'Share of answers that are not 2xx')!;
        const promql = resolve(panel.targets[0]!.expr, run!.job);
        // Counted twice, the proxied 200s made it read one in three.
        const share = await waitFor(
          `a steady share: ${promql}`,
          async () => {
            const [r] = (await query(promql)) as Array<{ value: [number, string] }>;
            const v = r === undefined ? NaN : Number(r.value[1]);
            return Math.abs(v - 0.5) < 0.08 ? v : undefined;
          },
          60_000,
          1000,
        );
        assert.ok(Math.abs(share - 0.5) < 0.08, String(share));
      });
    }
  });
}
