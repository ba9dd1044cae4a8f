/**
 * The `http` processor on svc and Benthos v4.51.0, the same YAML against a real local node:http
 * upstream: the content becomes the response body, `http_status_code` and the extracted headers
 * become metadata, the url is interpolated per message, and a failed request keeps the message
 * with Benthos' error text. Benthos is skipped, saying so, when it is not built.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { benthosMissing, runBoth } from './testing/benthos-peer.js';

let server: Server;
let base = '';

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      if (req.url === '/multi/') {
        // What a multipart request carried: its media type and which message bodies are parts of it.
        const type = (req.headers['content-type'] ?? '').split(';')[0];
        const parts = ['x', 'y', 'z'].filter((p) => body.includes(`\r\n\r\n${p}\r\n--`));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type, parts }));
        return;
      }
      if (req.url === '/fail/') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`no\nway ${body}`);
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json', 'x-echo-path': req.url ?? '', 'x-other': 'not extracted' });
      res.end(JSON.stringify({ path: req.url, method: req.method, got: body, kind: req.headers['x-kind'] ?? null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const config = (extra: string) => `input:
  generate:
    count: 3
    interval: ""
    mapping: |
      let v = ["a", "b", "c"].index(count("h") - 1)
      root = $v
      meta kind = if $v == "b" { "fail" } else { "ok" }
      meta keep = "kept"
pipeline:
  threads: 1
  processors:
    - http:
        url: ${base}/\${! meta("kind") }/
        verb: PUT
        headers:
          X-Kind: \${! content() }
        extract_headers:
          include_prefixes: [ x-echo- ]
        retries: 0
        retry_period: 1ms
${extra}    - mapping: |
        root.content = content().string()
        root.err = error()
        root.status = meta("http_status_code")
        root.echo = meta("x-echo-path")
        root.other = meta("x-other")
        root.keep = meta("keep")
output:
  stdout: {}
`;

interface Line {
  content: string;
  err: string | null;
  status: string | null;
  echo: string | null;
  other: string | null;
  keep: string;
}

const lines = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);

describe('http processor on svc and Benthos', () => {
  it('replaces each message with the response, with its status and extracted headers; a failure keeps the message, flagged', async (t) => {
    const { svc, benthos } = await runBoth(config(''));
    assert.equal(svc.code, 0, svc.stderr);
    const got = lines(svc.stdout);
    assert.deepEqual(got, [
      {
        content: JSON.stringify({ path: '/ok/', method: 'PUT', got: 'a', kind: 'a' }),
        err: null,
        status: '201',
        echo: '/ok/',
        other: null,
        keep: 'kept',
      },
      {
        content: 'b',
        err: `${base}/fail/: HTTP request returned unexpected response code (500): 500 Internal Server Error, Error: noway b`,
        status: '500',
        echo: null,
        other: null,
        keep: 'kept',
      },
      {
        content: JSON.stringify({ path: '/ok/', method: 'PUT', got: 'c', kind: 'c' }),
        err: null,
        status: '201',
        echo: '/ok/',
        other: null,
        keep: 'kept',
      },
    ]);
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.equal(benthos.code, 0, benthos.stderr);
    assert.deepEqual(got, lines(benthos.stdout));
  });

  it('sends the messages of a batch one request each, in parallel too, with the same results as Benthos', async (t) => {
    const batched = (parallel: boolean) =>
      config('')
        .replace('    interval: ""', '    interval: ""\n    batch_size: 3')
        .replace('        retries: 0', `        retries: 0\n        parallel: ${parallel}`);
    for (const parallel of [false, true]) {
      const { svc, benthos } = await runBoth(batched(parallel));
      assert.equal(svc.code, 0, svc.stderr);
      const got = lines(svc.stdout);
      assert.deepEqual(
        got.map((l) => [l.status, l.err === null]),
        [
          ['201', true],
          ['500', false],
          ['201', true],
        ],
      );
      if (!benthos) return t.diagnostic(benthosMissing!);
      assert.equal(benthos.code, 0, benthos.stderr);
      assert.deepEqual(got, lines(benthos.stdout), `parallel: ${parallel}`);
    }
  });

  it('sends a batch as one multipart request with batch_as_multipart; the response replaces the first message, as in Benthos', async (t) => {
    const yaml = `input:
  generate:
    count: 3
    batch_size: 3
    interval: ""
    mapping: 'root = ["x", "y", "z"].index(count("m") - 1)'
pipeline:
  threads: 1
  processors:
    - http:
        url: ${base}/multi/
        batch_as_multipart: true
        retries: 0
    - mapping: 'root = {"content": content().string(), "status": meta("http_status_code")}'
output:
  stdout: {}
`;
    const { svc, benthos } = await runBoth(yaml);
    assert.equal(svc.code, 0, svc.stderr);
    const got = svc.stdout.trim().split('\n');
    assert.deepEqual(
      got.map((l) => JSON.parse(l) as unknown),
      [{ content: JSON.stringify({ type: 'multipart/form-data', parts: ['x', 'y', 'z'] }), status: '200' }],
    );
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.equal(benthos.code, 0, benthos.stderr);
    assert.deepEqual(got, benthos.stdout.trim().split('\n'));
  });
});
