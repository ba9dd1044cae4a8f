import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@svc/engine';
import { loadHubConfig } from './hub-config.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-hub-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const write = (text: string) => {
  const file = join(dir, `hub-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  return file;
};

describe('hub.yaml', () => {
  it("loads the governance guide's hub.yaml and configs/governance/hub.yaml, paths relative to the file", async () => {
    const guide = readFileSync(join(ROOT, 'docs/guide/governance.md'), 'utf8');
    const block = /```yaml\n(# hub\.yaml\n[\s\S]*?)```/.exec(guide)?.[1];
    assert.ok(block, "the governance guide's hub.yaml block");
    const file = write(block);
    assert.deepEqual(await loadHubConfig(file), {
      httpAddress: '127.0.0.1:8181',
      grpcAddress: '127.0.0.1:50051',
      storage: { kind: 'embedded', dir: join(dir, 'hub-data') },
      heartbeatIntervalMs: 5000,
      inactiveAfterMissed: 3,
      syncMaxBytes: 128 * 1024 * 1024,
      syncIdleTimeoutMs: 300_000,
    });
    const shipped = await loadHubConfig(join(ROOT, 'configs/governance/hub.yaml'));
    assert.deepEqual(shipped.storage, { kind: 'embedded', dir: join(ROOT, 'configs/governance/hub-data') });
  });

  it('takes PostgreSQL and TLS', async () => {
    const c = await loadHubConfig(
      write('storage: { postgres: { url: "postgres://hub@db/hub" } }\ngrpc: { address: 0.0.0.0:443, tls: { cert_file: c.pem, key_file: k.pem } }\n'),
    );
    assert.deepEqual(c.storage, { kind: 'postgres', url: 'postgres://hub@db/hub', connectTimeoutMs: 5000, statementTimeoutMs: 10_000 });
    assert.deepEqual(c.tls, { certFile: join(dir, 'c.pem'), keyFile: join(dir, 'k.pem') });
  });

  it('replaces ${VAR} with the environment, as a pipeline config does; an unset one without a default is an error', async () => {
    process.env.SVC_TEST_HUB_DB = 'postgres://hub:s3cret@db/hub';
    try {
      const c = await loadHubConfig(write('storage: { postgres: { url: "${SVC_TEST_HUB_DB}" } }\nhttp: { address: "${SVC_TEST_HUB_UNSET:0.0.0.0:8181}" }\n'));
      assert.deepEqual(c.storage, { kind: 'postgres', url: 'postgres://hub:s3cret@db/hub', connectTimeoutMs: 5000, statementTimeoutMs: 10_000 });
      assert.equal(c.httpAddress, '0.0.0.0:8181');
    } finally {
      delete process.env.SVC_TEST_HUB_DB;
    }
    await assert.rejects(
      loadHubConfig(write('storage: { postgres: { url: "${SVC_TEST_HUB_UNSET}" } }\n')),
      (err: Error) => err instanceof ConfigError && /SVC_TEST_HUB_UNSET/.test(err.message),
    );
  });

  for (const [text, message] of [
    ['http: { adress: x }\n', /:1:9 field adress not expected at http; did you mean address\?$/],
    [
      'agents: { heartbeat_interval: soon }\n',
      /:1:31 invalid duration "soon": use a number with a unit, e\.g\. 500ms, 5s, 1m30s \(agents\.heartbeat_interval\)$/,
    ],
    ['agents: { inactive_after_missed: 0 }\n', /:1:34 expected a whole number of at least 1 \(agents\.inactive_after_missed\)$/],
    ['grpc: { tls: { cert_file: c.pem } }\n', /grpc\.tls needs both cert_file and key_file$/],
    ['storage: { postgres: { url: "postgres://h/db", statement_timeout: 0s } }\n', /storage\.postgres\.statement_timeout: must be above 0$/],
    ['http: [\n', /:2:1 YAML syntax error: /],
  ] as const) {
    it(`refuses ${JSON.stringify(text.trim())} with where and why`, async () => {
      await assert.rejects(loadHubConfig(write(text)), (err: Error) => err instanceof ConfigError && message.test(err.message));
    });
  }
});
