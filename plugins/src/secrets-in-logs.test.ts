/**
 * A config with a password in every URL-ish field, run by the real CLI against ports nothing
 * listens on: every line it prints (logs at DEBUG, errors, `engine echo`, `engine lint`) is
 * searched for the passwords. The users and the host stay, so a log still says where it tried.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const ENGINE = fileURLToPath(new URL('../../node_modules/.bin/engine', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-secrets-'));

const SECRETS = [
  'TOKENURLSECRET',
  'CLIENTSECRET',
  'JAEGERSECRET',
  'OTELSECRET',
  'PUSHURLSECRET',
  'HTTPURLSECRET',
  'PROXYURLSECRET',
  'BASICSECRET',
  'AMQPINSECRET',
  'AMQPOUTSECRET',
  'AVROSECRET',
  'PUSHAUTHSECRET',
];

/** A port on 127.0.0.1 that was free a moment ago: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function assertNoSecret(text: string): void {
  for (const s of SECRETS)
    assert.ok(
      !text.includes(s),
      `${s} printed:\n${text
        .split('\n')
        .filter((l) => l.includes(s))
        .join('\n')}`,
    );
}

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function failingConfig(port: number): string {
  return `http: { enabled: false }
logger: { level: TRACE }
shutdown_timeout: 2s
input:
  broker:
    inputs:
      - generate: { mapping: 'root = "x"', count: 1, interval: '' }
      - amqp_0_9:
          urls: [ amqp://amqpinuser:AMQPINSECRET@127.0.0.1:${port}/ ]
          queue: q-secrets-in-logs
output:
  broker:
    pattern: fan_out
    outputs:
      - http_client:
          url: http://httpuser:HTTPURLSECRET@127.0.0.1:${port}/post
          retries: 1
          retry_period: 10ms
          basic_auth: { enabled: true, username: basicuser, password: BASICSECRET }
      - amqp_0_9:
          urls: [ "amqp://amqpoutuser:AMQPOUTSECRET@127.0.0.1:${port}/,amqp://amqpoutuser:AMQPOUTSECRET@127.0.0.1:${port}/other" ]
          exchange: ex-secrets-in-logs
metrics:
  prometheus:
    push_url: http://pushuser:PUSHURLSECRET@127.0.0.1:${port}
    push_interval: 50ms
tracer:
  open_telemetry_collector:
    http: [ { address: "http://oteluser:OTELSECRET@127.0.0.1:${port}" } ]
`;
}

describe('secrets in URLs never reach the output of the CLI', () => {
  it('engine echo and engine lint show users and hosts, never a password', async () => {
    const port = await closedPort();
    const cfg = file(
      'echo.yaml',
      failingConfig(port).replace('retry_period: 10ms', `retry_period: 10ms\n          proxy_url: http://proxyuser:PROXYURLSECRET@127.0.0.1:${port}`),
    );
    const echo = spawnSync(ENGINE, ['echo', '-c', cfg], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(echo.status, 0, echo.stderr);
    assertNoSecret(echo.stdout + echo.stderr);
    for (const shown of [
      'pushuser:xxxxx@127.0.0.1',
      'httpuser:xxxxx@127.0.0.1',
      'proxyuser:xxxxx@127.0.0.1',
      'amqpinuser:xxxxx@127.0.0.1',
      `amqpoutuser:xxxxx@127.0.0.1:${port}/,amqp://amqpoutuser:xxxxx@127.0.0.1`,
    ]) {
      assert.ok(echo.stdout.includes(shown), `${shown} missing from:\n${echo.stdout}`);
    }
    const lint = spawnSync(ENGINE, ['lint', file('bad.yaml', failingConfig(port).replace('queue:', 'queeu:'))], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(lint.status, 1);
    assertNoSecret(lint.stdout + lint.stderr);
  });

  it('a run whose every connection fails logs where it tried, without a password', async () => {
    const port = await closedPort();
    const child = spawn(ENGINE, ['-c', file('run.yaml', failingConfig(port))], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const expected = [
      `Failed to push metrics to http://pushuser:xxxxx@127.0.0.1:${port}`,
      `Failed to send message: http://httpuser:xxxxx@127.0.0.1:${port}/post`,
      `amqp_0_9 input: cannot connect to amqp://amqpinuser:xxxxx@127.0.0.1:${port}/`,
      `amqp_0_9 output: cannot connect to any of 2 URLs: amqp://amqpoutuser:xxxxx@127.0.0.1:${port}/`,
      `span(s) to http://oteluser:xxxxx@127.0.0.1:${port}`,
    ];
    try {
      for (let i = 0; i < 400 && !expected.every((e) => out.includes(e)) && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGINT');
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 30_000))]);
      assert.notEqual(code, 'timeout', out);
    } finally {
      child.kill('SIGKILL');
    }
    for (const e of expected) assert.ok(out.includes(e), `"${e}" missing from:\n${out}`);
    assert.doesNotMatch(out, /DeprecationWarning/);
    assertNoSecret(out);
  });

  it('a stream that cannot start says why without the password (avro schema_path, push_basic_auth)', async () => {
    const port = await closedPort();
    const cfg = file(
      'start.yaml',
      `http: { enabled: false }
input:
  generate: { mapping: 'root = "x"', count: 1, interval: '' }
pipeline:
  threads: 1
  processors:
    - avro: { operator: to_json, schema_path: "http://avrouser:AVROSECRET@127.0.0.1:${port}/s.avsc" }
output:
  drop: {}
metrics:
  prometheus:
    push_url: "http://pushuser:PUSH%23URLSECRET@127.0.0.1:${port}"
    push_basic_auth: { enabled: true, username: pushauth, password: PUSHAUTHSECRET }
`,
    );
    const r = spawnSync(ENGINE, ['-c', cfg], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`schema_path \\\\"http://avrouser:xxxxx@127\\.0\\.0\\.1:${port}/s\\.avsc\\\\": cannot fetch it`));
    assert.match(r.stderr, new RegExp(`Failed to push metrics to http://pushuser:xxxxx@127\\.0\\.0\\.1:${port}`));
    assert.doesNotMatch(r.stderr, /DeprecationWarning/);
    assertNoSecret(r.stdout + r.stderr);
    assert.ok(!(r.stdout + r.stderr).includes('URLSECRET'), r.stderr); // PUSH%23URLSECRET: a '#' in a password
  });

  it('lint refuses a URL a client could not read, at its line and column, without the password', () => {
    const cfg = file(
      'bad-urls.yaml',
      `http: { enabled: false }
input:
  amqp_0_9: { urls: [ "amqp://amqpinuser:AMQPINSECRET@127.0.0.1:5672x/" ], queue: q }
output:
  drop: {}
tracer:
  jaeger:
    collector_url: http://juser:JAEGERSECRET@127.0.0.1:14268x/api/traces
metrics:
  prometheus:
    push_url: "http://pushuser:PUSH#URLSECRET@127.0.0.1:9091"
`,
    );
    for (const args of [
      ['lint', cfg],
      ['-c', cfg],
    ]) {
      const r = spawnSync(ENGINE, args, { encoding: 'utf8', timeout: 60_000 });
      const out = r.stdout + r.stderr;
      assert.equal(r.status, 1, out);
      assert.ok(out.includes(`${cfg}:3:21 "amqp://amqpinuser:xxxxx@127.0.0.1:5672x/" is not a valid URL`), out);
      assert.ok(out.includes(`${cfg}:8:20 "http://juser:xxxxx@127.0.0.1:14268x/api/traces" is not a valid URL`), out);
      assert.ok(out.includes(`${cfg}:11:15 "http://pushuser:xxxxx@127.0.0.1:9091" is not a valid URL`), out);
      assert.doesNotMatch(out, /DeprecationWarning/);
      assertNoSecret(out);
      assert.ok(!out.includes('URLSECRET'), out);
    }
  });

  it('oauth2 (token_url) and jaeger (collector_url) against loopback servers never log a password, and send it only as basic auth', async () => {
    // A token endpoint that drops every connection (the client's "cannot fetch a token" path) and
    // a Jaeger collector double (a plain HTTP server taking the Thrift POSTs) that fails each one.
    const tokenCalls: string[] = [];
    const collectorAuth: string[] = [];
    const server = createHttpServer((req: IncomingMessage, res) => {
      req.resume();
      if (req.url === '/token') {
        tokenCalls.push(req.headers.authorization ?? '');
        req.socket.destroy();
        return;
      }
      collectorAuth.push(req.headers.authorization ?? '');
      req.on('end', () => res.writeHead(500).end('collector says no'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const cfg = file(
      'oauth2-jaeger.yaml',
      `http: { enabled: false }
logger: { level: TRACE }
shutdown_timeout: 2s
input:
  generate: { mapping: 'root = "x"', count: 0, interval: 50ms }
output:
  http_client:
    url: http://127.0.0.1:${port}/post
    retries: 1
    retry_period: 10ms
    oauth2:
      enabled: true
      client_key: app
      client_secret: CLIENTSECRET
      token_url: http://tokuser:TOKENURLSECRET@127.0.0.1:${port}/token
tracer:
  jaeger:
    collector_url: http://juser:JAEGERSECRET@127.0.0.1:${port}/api/traces
    flush_interval: 50ms
`,
    );
    const child = spawn(ENGINE, ['-c', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const expected = [`cannot fetch a token from http://tokuser:xxxxx@127.0.0.1:${port}/token`, 'server responded with HTTP 500'];
    try {
      for (let i = 0; i < 400 && !(expected.every((e) => out.includes(e)) && tokenCalls.length >= 3) && child.exitCode === null; i++)
        await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGINT');
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 30_000))]);
      assert.notEqual(code, 'timeout', out);
    } finally {
      child.kill('SIGKILL');
      server.close();
    }
    for (const e of expected) assert.ok(out.includes(e), `"${e}" missing from:\n${out}`);
    assert.ok(tokenCalls.length >= 3, `${tokenCalls.length} token requests`);
    assert.ok(collectorAuth.length >= 1, 'no span reached the collector');
    assert.equal(collectorAuth[0], `Basic ${Buffer.from('juser:JAEGERSECRET').toString('base64')}`);
    assert.doesNotMatch(out, /DeprecationWarning/);
    assertNoSecret(out);
  });
});
