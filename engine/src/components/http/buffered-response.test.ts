/**
 * dispatchBuffered against a real node:http server on loopback, through the same undici Agent
 * and redirect interceptor the http_client uses: declared and chunked bodies arrive whole, a
 * redirect is followed, and a body over the limit is refused by its declared length or while it
 * streams (the connection is not left hanging).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Agent, interceptors, type Dispatcher } from 'undici';
import { dispatchBuffered } from './buffered-response.js';

class TooLarge extends Error {}

describe('dispatchBuffered', () => {
  let server: Server;
  let origin: string;
  const agent: Dispatcher = new Agent().compose(interceptors.redirect({ maxRedirections: 3 }));

  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/declared') return void res.writeHead(201, { 'content-length': 5, 'x-kind': 'declared' }).end('hello');
      if (req.url === '/chunked') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('one,');
        setTimeout(() => res.end('two'), 5);
        return;
      }
      if (req.url === '/moved') return void res.writeHead(302, { location: '/declared', 'content-length': 0 }).end();
      if (req.url === '/big-declared') return void res.writeHead(200, { 'content-length': 100 }).end('x'.repeat(100));
      if (req.url === '/big-streamed') {
        res.writeHead(200);
        const tick = setInterval(() => res.write('y'.repeat(20)), 2);
        res.on('close', () => clearInterval(tick));
        return;
      }
      if (req.url === '/empty') return void res.writeHead(204).end();
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await agent.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const get = (path: string, limit = 64) =>
    dispatchBuffered(agent, { origin, path, method: 'GET', headersTimeout: 2000, bodyTimeout: 2000 }, limit, () => new TooLarge('too large'));

  it('reads a body of declared length with its status and lower-cased headers', async () => {
    const r = await get('/declared');
    assert.equal(r.status, 201);
    assert.equal(r.headers['x-kind'], 'declared');
    assert.equal(r.body.toString(), 'hello');
  });

  it('reads a chunked body whole', async () => {
    const r = await get('/chunked');
    assert.equal(r.status, 200);
    assert.equal(r.body.toString(), 'one,two');
  });

  it('follows a redirect to the final answer', async () => {
    const r = await get('/moved');
    assert.equal(r.status, 201);
    assert.equal(r.body.toString(), 'hello');
  });

  it('answers an empty body as an empty buffer', async () => {
    const r = await get('/empty');
    assert.equal(r.status, 204);
    assert.equal(r.body.length, 0);
  });

  it('refuses a body whose declared length is over the limit', async () => {
    await assert.rejects(get('/big-declared'), TooLarge);
  });

  it('refuses a streamed body once it passes the limit, and the client goes on working', async () => {
    await assert.rejects(get('/big-streamed'), TooLarge);
    assert.equal((await get('/declared')).body.toString(), 'hello');
  });
});
