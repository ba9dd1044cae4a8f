import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createHash, scryptSync } from 'node:crypto';
import * as http from 'node:http';
import bcrypt from 'bcryptjs';
import * as https from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { HttpConfig } from '../config/root-spec.js';
import { createLogger, silentLogger } from '../observability/logger.js';
import { StatusBoard } from '../runtime/status.js';
import { ServiceServer, type ServiceServerOptions } from './http-server.js';
import { selfSignedCert } from '../testing/self-signed.js';

function config(overrides: Partial<HttpConfig> = {}): HttpConfig {
  return {
    enabled: true,
    address: '127.0.0.1:0',
    root_path: '/svc',
    debug_endpoints: false,
    cert_file: '',
    key_file: '',
    cors: { enabled: false, allowed_origins: [] },
    basic_auth: { enabled: false, realm: 'restricted', username: '', password_hash: '', algorithm: 'sha256', salt: '' },
    ...overrides,
  };
}

/** Starts a server, runs `fn` against its base URL, and always closes it. */
async function withServer(
  fn: (base: string, server: ServiceServer) => Promise<void>,
  conf: Partial<HttpConfig> = {},
  opts: Partial<ServiceServerOptions> = {},
): Promise<void> {
  const server = new ServiceServer(config(conf), { status: new StatusBoard(), logger: silentLogger, version: '1.2.3', ...opts });
  await server.start();
  try {
    const { port } = server.address();
    await fn(`http://127.0.0.1:${port}`, server);
  } finally {
    await server.close();
  }
}

function text(body: string): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(body);
  };
}

/** A guard, not a measurement: only a promise that never settles comes near it. */
const GUARD_MS = 30_000;

/** Fails the test instead of hanging it when `p` never settles. */
function settles<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${GUARD_MS}ms`)), GUARD_MS);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

describe('ServiceServer', () => {
  it('answers /ping with pong', async () => {
    await withServer(async (base) => {
      const res = await fetch(`${base}/ping`);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'pong');
    });
  });

  it('answers /ready with 503 and the reasons until every component is connected', async () => {
    const status = new StatusBoard();
    const input = status.track('root.input', 'input', 'kafka');
    const output = status.track('root.output', 'output', 'http_client');
    output.reason = 'connect ECONNREFUSED 127.0.0.1:9092';
    await withServer(
      async (base) => {
        let res = await fetch(`${base}/ready`);
        assert.equal(res.status, 503);
        assert.equal(await res.text(), 'input root.input (kafka): not connected yet\noutput root.output (http_client): connect ECONNREFUSED 127.0.0.1:9092\n');

        input.connected = true;
        res = await fetch(`${base}/ready`);
        assert.equal(res.status, 503);
        assert.equal(await res.text(), 'output root.output (http_client): connect ECONNREFUSED 127.0.0.1:9092\n');

        output.connected = true;
        res = await fetch(`${base}/ready`);
        assert.equal(res.status, 200);
        assert.equal(await res.text(), 'OK');
      },
      {},
      { status },
    );
  });

  it('answers /version with JSON', async () => {
    await withServer(
      async (base) => {
        const res = await fetch(`${base}/version`);
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        assert.deepEqual(await res.json(), { version: '1.2.3', built: '2024-05-01' });
      },
      {},
      { built: '2024-05-01' },
    );
  });

  it('lists built-in and mounted routes on /endpoints', async () => {
    await withServer(async (base, server) => {
      server.mount('/metrics', text('m'), 'Prometheus metrics.');
      server.mount('/hooks/', text('h'));
      const res = await fetch(`${base}/endpoints`);
      assert.equal(res.status, 200);
      const body = (await res.json()) as Record<string, string>;
      assert.deepEqual(Object.keys(body).sort(), ['/endpoints', '/hooks/', '/metrics', '/ping', '/ready', '/version']);
      assert.equal(body['/metrics'], 'Prometheus metrics.');
      assert.equal(body['/hooks/'], '');
      assert.ok(body['/ready']);
    });
  });

  it('routes exact paths, and prefix paths by longest prefix', async () => {
    await withServer(async (base, server) => {
      server.mount('/api/', text('api'));
      server.mount('/api/v2/', text('v2'));
      server.mount('/api/v2/exact', text('exact'));
      const get = async (path: string): Promise<string> => {
        const res = await fetch(base + path);
        assert.equal(res.status, 200, path);
        return res.text();
      };
      assert.equal(await get('/api/'), 'api');
      assert.equal(await get('/api/v1/things?x=1'), 'api');
      assert.equal(await get('/api/v2/'), 'v2');
      assert.equal(await get('/api/v2/things/7'), 'v2');
      assert.equal(await get('/api/v2/exact'), 'exact');
      assert.equal(await get('/api/v2/exact/more'), 'v2');
      // An exact route does not own the paths under it.
      server.mount('/only', text('only'));
      assert.equal((await fetch(`${base}/only/below`)).status, 404);
    });
  });

  it('passes every method to a mounted handler', async () => {
    await withServer(async (base, server) => {
      server.mount('/echo', (req, res) => {
        res.writeHead(200);
        res.end(req.method);
      });
      const res = await fetch(`${base}/echo`, { method: 'POST', body: 'x' });
      assert.equal(await res.text(), 'POST');
    });
  });

  it('refuses to mount a path twice, built-ins included, and allows it again after unmount', async () => {
    await withServer(async (base, server) => {
      server.mount('/metrics', text('one'));
      assert.throws(() => server.mount('/metrics', text('two')), /"\/metrics".*already mounted/);
      assert.throws(() => server.mount('/ping', text('mine')), /"\/ping".*already mounted/);
      assert.throws(() => server.mount('metrics', text('x')), /must start with "\/"/);

      server.unmount('/metrics');
      assert.equal((await fetch(`${base}/metrics`)).status, 404);
      server.mount('/metrics', text('two'));
      assert.equal(await (await fetch(`${base}/metrics`)).text(), 'two');
      server.unmount('/not-mounted'); // a no-op
    });
  });

  it('serves every route under root_path too', async () => {
    await withServer(
      async (base, server) => {
        server.mount('/metrics', text('m'));
        server.mount('/hooks/', text('hooks'));
        assert.equal(await (await fetch(`${base}/svc/ping`)).text(), 'pong');
        assert.equal(await (await fetch(`${base}/svc/metrics`)).text(), 'm');
        assert.equal(await (await fetch(`${base}/svc/hooks/a/b`)).text(), 'hooks');
        assert.equal((await fetch(`${base}/svc/nothing`)).status, 404);
        assert.equal((await fetch(`${base}/svcping`)).status, 404);
      },
      { root_path: '/svc/' },
    );
  });

  it('answers an unknown path with 404', async () => {
    await withServer(async (base) => {
      const res = await fetch(`${base}/nope`);
      assert.equal(res.status, 404);
      assert.equal(await res.text(), 'not found\n');
    });
  });

  it('accepts GET and HEAD on built-ins and answers other methods with 405', async () => {
    await withServer(async (base) => {
      const head = await fetch(`${base}/ping`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), '');

      const post = await fetch(`${base}/ready`, { method: 'POST', body: '{}' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET, HEAD');
      await post.text();
    });
  });

  it('answers CORS preflights and marks allowed origins', async () => {
    await withServer(
      async (base) => {
        const preflight = await fetch(`${base}/ready`, {
          method: 'OPTIONS',
          headers: {
            Origin: 'https://dash.example',
            'Access-Control-Request-Method': 'GET',
            'Access-Control-Request-Headers': 'x-token',
          },
        });
        assert.equal(preflight.status, 204);
        assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://dash.example');
        assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /GET/);
        assert.equal(preflight.headers.get('access-control-allow-headers'), 'x-token');

        const allowed = await fetch(`${base}/ping`, { headers: { Origin: 'https://dash.example' } });
        assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://dash.example');
        assert.equal(await allowed.text(), 'pong');

        const other = await fetch(`${base}/ping`, { headers: { Origin: 'https://evil.example' } });
        assert.equal(other.headers.get('access-control-allow-origin'), null);
        await other.text();
      },
      { cors: { enabled: true, allowed_origins: ['https://dash.example'] } },
    );
    await withServer(
      async (base) => {
        const res = await fetch(`${base}/ping`, { headers: { Origin: 'https://any.example' } });
        assert.equal(res.headers.get('access-control-allow-origin'), '*');
        await res.text();
      },
      { cors: { enabled: true, allowed_origins: ['*'] } },
    );
  });

  it('refuses CORS with no allowed origin', () => {
    assert.throws(
      () => new ServiceServer(config({ cors: { enabled: true, allowed_origins: [] } }), { status: new StatusBoard(), logger: silentLogger, version: '' }),
      /allowed_origins is empty/,
    );
  });

  it('answers a throwing handler with a bare 500 and logs the error', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'ERROR', format: 'json' }, { write: (line) => lines.push(line) });
    await withServer(
      async (base, server) => {
        server.mount('/boom', (_req, res) => {
          res.setHeader('X-Secret', 'hunter2');
          throw new Error('password=hunter2 leaked');
        });
        server.mount('/async-boom', async () => {
          await Promise.resolve();
          throw new Error('async failure');
        });
        for (const path of ['/boom', '/async-boom']) {
          const res = await fetch(base + path);
          assert.equal(res.status, 500);
          const body = await res.text();
          assert.equal(body, 'internal server error\n');
          assert.equal(res.headers.get('x-secret'), null);
        }
        // The server keeps serving.
        assert.equal((await fetch(`${base}/ping`)).status, 200);
      },
      {},
      { logger },
    );
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /password=hunter2 leaked/);
    assert.match(lines[0]!, /"route":"\/boom"/);
    assert.match(lines[1]!, /async failure/);
  });

  it('closes promptly while an idle keep-alive connection is open', async () => {
    const server = new ServiceServer(config(), { status: new StatusBoard(), logger: silentLogger, version: '' });
    await server.start();
    const agent = new http.Agent({ keepAlive: true });
    try {
      const { port } = server.address();
      const body = await new Promise<string>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/ping', agent }, (res) => {
            let data = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (data += c));
            res.on('end', () => resolve(data));
          })
          .on('error', reject);
      });
      assert.equal(body, 'pong');
      assert.equal(Object.keys(agent.freeSockets).length, 1, 'the connection stays open');
    } finally {
      await settles(server.close());
      agent.destroy();
    }
  });

  it('closes after the grace while a request is stuck mid-way', async (t) => {
    const GRACE_MS = 60_000;
    let stuck!: () => void;
    const handled = new Promise<void>((resolve) => (stuck = resolve));
    const server = new ServiceServer(config(), { status: new StatusBoard(), logger: silentLogger, version: '', closeGraceMs: GRACE_MS });
    server.mount('/never', () => stuck()); // never answers
    await server.start();
    const { port } = server.address();
    // One connection is sending its headers slowly, another waits on a handler.
    const partial = connect(port, '127.0.0.1');
    partial.on('error', () => {});
    await new Promise((resolve) => partial.once('connect', resolve));
    partial.write('GET /ping HTTP/1.1\r\nHost:');
    const hung = connect(port, '127.0.0.1');
    let hungClosed = false;
    const ended = new Promise<void>((resolve) => hung.on('close', () => resolve()));
    void ended.then(() => (hungClosed = true));
    hung.on('error', () => {});
    hung.write('GET /never HTTP/1.1\r\nHost: x\r\n\r\n');
    await handled;
    // The grace is the server's own timer: mocked, so that what it decides at each moment shows.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    const turns = async () => {
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    await turns();
    t.mock.timers.tick(GRACE_MS - 1);
    await turns();
    assert.equal(closed, false, 'close waits out the grace for the request in flight');
    assert.equal(hungClosed, false, 'the stuck connection is left open during the grace');
    t.mock.timers.tick(1);
    await closing;
    await ended;
    partial.destroy();
  });

  it("basic_auth: every route needs the user and a password matching password_hash, by each of Benthos' algorithms", async () => {
    const pass = 'hunter2';
    const salt = Buffer.from('pepper').toString('base64');
    const hashes = {
      md5: createHash('md5').update(pass).digest('base64'),
      sha256: createHash('sha256').update(pass).digest('base64'),
      bcrypt: Buffer.from(bcrypt.hashSync(pass, 4)).toString('base64'),
      scrypt: scryptSync(pass, Buffer.from(salt, 'base64'), 32, { N: 32768, r: 8, p: 1, maxmem: 64 << 20 }).toString('base64'),
    };
    for (const [algorithm, password_hash] of Object.entries(hashes) as Array<[keyof typeof hashes, string]>) {
      await withServer(
        async (base) => {
          const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
          const none = await fetch(`${base}/ping`);
          assert.equal(none.status, 401, algorithm);
          assert.equal(none.headers.get('www-authenticate'), 'Basic realm="ops", charset="UTF-8"');
          assert.equal((await fetch(`${base}/ping`, { headers: basic('admin', 'wrong') })).status, 401, algorithm);
          assert.equal((await fetch(`${base}/ping`, { headers: basic('root', pass) })).status, 401, algorithm);
          const ok = await fetch(`${base}/ping`, { headers: basic('admin', pass) });
          assert.equal(ok.status, 200, algorithm);
          assert.equal(await ok.text(), 'pong');
          assert.equal((await fetch(`${base}/ping`, { headers: basic('admin', pass) })).status, 200, `${algorithm} again`);
        },
        { basic_auth: { enabled: true, realm: 'ops', username: 'admin', password_hash, algorithm, salt } },
      );
    }
  });

  it('rejects start on a port in use, and close is then a no-op', async () => {
    await withServer(async (_base, first) => {
      const { port } = first.address();
      const second = new ServiceServer(config({ address: `127.0.0.1:${port}` }), {
        status: new StatusBoard(),
        logger: silentLogger,
        version: '',
      });
      await assert.rejects(second.start(), /cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
      await settles(second.close());
    });
  });

  it('refuses half-configured TLS', async () => {
    const server = new ServiceServer(config({ cert_file: '/some/cert.pem' }), { status: new StatusBoard(), logger: silentLogger, version: '' });
    await assert.rejects(server.start(), /cert_file and http\.key_file must be set together/);
    await server.close();
  });

  it('serves TLS when cert_file and key_file are set', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    try {
      const made = selfSignedCert(dir);
      if (!made) {
        t.skip('openssl is not available to make a test certificate');
        return;
      }
      const { cert, key } = made;
      const server = new ServiceServer(config({ cert_file: cert, key_file: key }), { status: new StatusBoard(), logger: silentLogger, version: '' });
      await server.start();
      try {
        const { port } = server.address();
        const body = await new Promise<string>((resolve, reject) => {
          https
            .get({ host: '127.0.0.1', port, path: '/svc/ping', rejectUnauthorized: false, agent: false }, (res) => {
              let data = '';
              res.setEncoding('utf8');
              res.on('data', (c: string) => (data += c));
              res.on('end', () => resolve(data));
            })
            .on('error', reject);
        });
        assert.equal(body, 'pong');
      } finally {
        await server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
