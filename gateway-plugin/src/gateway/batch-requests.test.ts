/**
 * Batch requests (`enable_batch_request_support`, issue 40) against a real gateway process and an
 * upstream that records what reaches it: each request of a batch goes through the API's chain (a
 * keyed API's sub-requests need their own key; the API's rate limit counts them, not the batch),
 * the replies are Tyk's JSON, Tyk's 400s for a malformed batch, an empty 200 for GET, and the bound
 * on requests a batch may carry. The expected answers are what Tyk v5.14.0 answered on the same
 * definitions: `scripts/tyk-diff-batch.mjs` sends these batches to both (11/11 the same; the only
 * header apart is Tyk's X-Generator on error replies, which no svc error answer carries).
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { describe, it } from 'node:test';
import { definitionGateway, tykBody, type Def } from './definition-fixtures.js';
import { BATCH_HOP, MAX_REQUESTS } from './batch-requests.js';
import { call, upstreamForFile } from './test-support.js';

const seen: string[] = [];
/** Requests that reached the upstream with the gateway's own sub-request mark: none may. */
let marked = 0;
const up = upstreamForFile(
  http.createServer((req, res) => {
    if (req.headers[BATCH_HOP] !== undefined) marked++;
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${body} x-a=${req.headers['x-a'] ?? ''}`);
      if ((req.url ?? '').endsWith('/fail')) return void res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
      res.writeHead(200, { 'content-type': 'application/json', 'x-up': 'yes' }).end(JSON.stringify({ got: `${req.method} ${req.url}`, body }));
    });
  }),
);

function def(id: string, more: Def = {}): Def {
  return {
    api_id: id,
    name: id,
    use_keyless: true,
    enable_batch_request_support: true,
    proxy: { listen_path: `/${id}/`, target_url: up.url(), strip_listen_path: true },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: {} } } },
    ...more,
  };
}

interface Unit {
  relative_url: string;
  code: number;
  headers: Record<string, string[]> | null;
  body: string;
}

describe('batch requests (Tyk: gateway/batch_requests.go)', () => {
  it('sends each request through the API chain and answers the replies as Tyk does', async () => {
    const { port, engine } = await definitionGateway({
      'open.json': def('open', { global_rate_limit: { rate: 5, per: 60 } }),
      'keyed.json': def('keyed', { use_keyless: false, auth: { auth_header_name: 'Authorization' } }),
      'nobatch.json': def('nobatch', { enable_batch_request_support: false }),
    });
    try {
      const post = async (path: string, body: unknown) => {
        const before = seen.length;
        const r = await call(port, 'POST', path, { body: typeof body === 'string' ? body : JSON.stringify(body) });
        return { ...r, upstream: seen.slice(before) };
      };
      const units = (body: string) => (JSON.parse(body) as Unit[]).map((u) => [u.relative_url, u.code, u.headers?.['Content-Type']?.[0], u.body]);
      let r = await post('/open/tyk/batch/', {
        requests: [
          { method: 'GET', relative_url: 'a?x=1', headers: { 'x-a': '1' } },
          { method: 'POST', relative_url: 'b', body: 'hello' },
          { method: 'GET', relative_url: 'fail' },
        ],
        suppress_parallel_execution: true,
      });
      assert.deepEqual(
        [r.status, r.headers['content-type'], r.upstream],
        [200, 'application/json', ['GET /a?x=1  x-a=1', 'POST /b hello x-a=', 'GET /fail  x-a=']],
      );
      assert.deepEqual(units(r.body), [
        ['a?x=1', 200, 'application/json', '{"got":"GET /a?x=1","body":""}'],
        ['b', 200, 'application/json', '{"got":"POST /b","body":"hello"}'],
        ['fail', 502, 'text/plain', 'bad gateway'],
      ]);
      const first = (JSON.parse(r.body) as Unit[])[0]!;
      assert.deepEqual(first.headers!['X-Up'], ['yes']);
      assert.equal(first.headers!['Connection'], undefined);
      assert.ok(r.body.endsWith('}]\n'), "Go's json.Encoder: a final newline");
      // The rate limit (5 a minute) counted the three above and these, not the batches.
      r = await post('/open/tyk/batch/', {
        requests: [{ relative_url: 'r1' }, { relative_url: 'r2' }, { relative_url: 'r3' }],
        suppress_parallel_execution: true,
      });
      assert.deepEqual(
        units(r.body).map((u) => u.slice(0, 2)),
        [
          ['r1', 200],
          ['r2', 200],
          ['r3', 429],
        ],
      );
      assert.equal((JSON.parse(r.body) as Unit[])[2]!.body, tykBody('API Rate Limit Exceeded'));
      // Go's decoder: field names in any case.
      r = await post('/keyed/tyk/batch/', { Requests: [{ Method: 'GET', Relative_URL: 'p1' }] });
      assert.deepEqual(
        units(r.body).map((u) => u.slice(0, 2)),
        [['p1', 401]],
      );
      // A keyed API: each request needs its own key; in parallel, the replies in the order of the requests.
      r = await post('/keyed/tyk/batch/', {
        requests: [{ relative_url: 'k' }, { relative_url: 'k', headers: { Authorization: 'nope' } }, { method: 'DELETE', relative_url: 'q' }],
      });
      assert.deepEqual(units(r.body), [
        ['k', 401, 'application/json', tykBody('Authorization field missing')],
        ['k', 403, 'application/json', tykBody('Access to this API has been disallowed')],
        ['q', 401, 'application/json', tykBody('Authorization field missing')],
      ]);
      assert.deepEqual(r.upstream, []);
      // Tyk's refusals, and its empty answers.
      r = await post('/keyed/tyk/batch/', 'not json');
      assert.deepEqual([r.status, r.body], [400, '{"status":"error","message":"Batch request malformed"}\n']);
      r = await post('/keyed/tyk/batch/', { requests: [{ method: 'G T', relative_url: 'x' }] });
      assert.deepEqual([r.status, r.body], [400, '{"status":"error","message":"Batch request creation failed , request structure malformed"}\n']);
      r = await post('/keyed/tyk/batch/', { requests: [] });
      assert.deepEqual([r.status, r.body], [200, '[]\n']);
      const get = await call(port, 'GET', '/keyed/tyk/batch/');
      assert.deepEqual([get.status, get.body, get.headers['content-type']], [200, '', undefined]);
      // Not the batch path, or no batches on the API: proxied as any request.
      r = await post('/nobatch/tyk/batch/', { requests: [{ relative_url: 'n' }] });
      assert.deepEqual([r.status, JSON.parse(r.body).got], [200, 'POST /tyk/batch/']);
      // Bounded: more requests than a batch may carry is refused before any is sent.
      const many = Array.from({ length: MAX_REQUESTS + 1 }, () => ({ relative_url: 'm' }));
      r = await post('/open/tyk/batch/', { requests: many });
      assert.deepEqual([r.status, r.upstream.length, JSON.parse(r.body).message], [400, 0, `Batch request malformed: more than ${MAX_REQUESTS} requests`]);
    } finally {
      await engine.stop();
    }
  });
  it('refuses a batch sent from a batch (Tyk runs it: 64 more requests at each level), and no upstream sees the mark', async () => {
    const { port, engine } = await definitionGateway({ 'nest.json': def('nest') });
    try {
      const inner = JSON.stringify({ requests: [{ relative_url: 'deep' }] });
      const before = seen.length;
      const r = await call(port, 'POST', '/nest/tyk/batch/', {
        body: JSON.stringify({
          requests: [{ method: 'POST', relative_url: 'tyk/batch/', body: inner }, { relative_url: 'flat' }],
          suppress_parallel_execution: true,
        }),
      });
      const units = (JSON.parse(r.body) as Unit[]).map((u) => [u.relative_url, u.code, u.body]);
      assert.deepEqual(units, [
        ['tyk/batch/', 400, '{"status":"error","message":"Batch request malformed: a batch cannot be sent from a batch"}\n'],
        ['flat', 200, '{"got":"GET /flat","body":""}'],
      ]);
      assert.deepEqual(seen.slice(before), ['GET /flat  x-a='], 'the nested batch sent nothing');
      // A client that sends the mark only refuses its own batch; no upstream ever sees the header.
      const own = await call(port, 'POST', '/nest/tyk/batch/', { headers: { [BATCH_HOP]: '1' }, body: inner });
      assert.equal(own.status, 400, 'a client that sends the mark only refuses its own batch');
      assert.equal(marked, 0);
    } finally {
      await engine.stop();
    }
  });
});
