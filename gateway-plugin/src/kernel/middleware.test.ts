/**
 * Every gateway middleware fails closed the same way: a request whose gateway state or API is
 * missing on this thread, or whose middleware throws, is answered with Tyk's 500 and logged once
 * at ERROR, naming the processor; it is never passed on to the next stage. Before the shared
 * helper, `gateway_rate_limit` and `gateway_url_rewrite` let such a request through silently.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger, isAnswered, Message, ResultStore, type Answer, type Logger } from '@svc/engine';
import { GatewayAuth } from '../auth/gateway-auth.js';
import { makeState } from '../auth/test-support.js';
import { GatewayRateLimit } from '../ratelimit/gateway-rate-limit.js';
import { WindowTable, windowTableBytes } from '@svc/engine/kit';
import { LiveInstances } from '../ratelimit/distributed-limiter.js';
import { GatewayUrlRewrite } from '../rewrite/gateway-url-rewrite.js';
import { apiSpec } from '../testing/fixtures.js';
import { tykErrorBody } from './errors.js';
import { GatewayMiddleware, type MiddlewareCall } from './middleware.js';
import { GATEWAY_REQUEST, type GatewayRequest } from './request.js';
import { GATEWAY_STAGES } from './stages.js';

function capture(): { logger: Logger; lines: Array<{ level: string; msg: string }> } {
  const lines: Array<{ level: string; msg: string }> = [];
  const logger = createLogger({ level: 'DEBUG', format: 'json' }, { write: (l) => lines.push(JSON.parse(l) as { level: string; msg: string }) });
  return { logger, lines };
}

function request(gateway: string, apiId: string): Message {
  const msg = new Message(Buffer.alloc(0));
  const req: GatewayRequest = {
    gateway,
    apiId,
    method: 'GET',
    path: `/${apiId}/x`,
    upstreamPath: '/x',
    query: '',
    headers: {},
    remoteAddress: '127.0.0.1',
    tls: false,
  };
  msg.ctx.set(GATEWAY_REQUEST, req);
  return msg;
}

async function answerOf(p: { process(b: Message[]): Promise<Message[][]> }, msg: Message): Promise<Answer | undefined> {
  const store = new ResultStore<Answer>([msg]);
  await p.process([msg]);
  return isAnswered(msg) ? store.results()[0] : undefined;
}

const processors: Array<[string, string, (log: Logger) => { process(b: Message[]): Promise<Message[][]> }]> = [
  ['gateway_auth', 'gateway_auth', (log) => new GatewayAuth(log)],
  [
    'gateway_rate_limit',
    'gateway_rate_limit (scope api)',
    (log) =>
      new GatewayRateLimit('api', new WindowTable(new SharedArrayBuffer(windowTableBytes(16))), new LiveInstances(new SharedArrayBuffer(4)), log, () => {}),
  ],
  [
    'gateway_rate_limit',
    'gateway_rate_limit (scope key)',
    (log) =>
      new GatewayRateLimit('key', new WindowTable(new SharedArrayBuffer(windowTableBytes(16))), new LiveInstances(new SharedArrayBuffer(4)), log, () => {}),
  ],
  ['gateway_url_rewrite', 'gateway_url_rewrite', (log) => new GatewayUrlRewrite(log)],
];

describe('gateway middleware: one failure policy', () => {
  for (const [name, title, make] of processors) {
    it(`${title} refuses a request whose gateway has no state on this thread: 500, one ERROR line`, async () => {
      const { logger, lines } = capture();
      const msg = request('no-such-gateway', 'a');
      const answer = await answerOf(make(logger), msg);
      assert.equal(answer?.status, 500);
      assert.equal(Buffer.from(answer.body ?? []).toString(), tykErrorBody('There was a problem proxying the request'));
      assert.equal(msg.ctx.get(GATEWAY_STAGES), undefined, 'no stage is recorded');
      const errors = lines.filter((l) => l.level === 'error');
      assert.equal(errors.length, 1, JSON.stringify(lines));
      assert.match(errors[0]!.msg, new RegExp(`^${name}: request refused \\(500\\): gateway "no-such-gateway" has no state on this thread`));
    });

    it(`${title} refuses a request for an API its gateway does not hold: 500, one ERROR line`, async () => {
      const { logger, lines } = capture();
      const state = makeState([apiSpec({ id: 'other' })]);
      const answer = await answerOf(make(logger), request(state.name, 'gone'));
      assert.equal(answer?.status, 500);
      const errors = lines.filter((l) => l.level === 'error');
      assert.equal(errors.length, 1, JSON.stringify(lines));
      assert.match(errors[0]!.msg, /request refused \(500\): API gone is not loaded in gateway/);
    });
  }

  it('a new middleware gets the state and API, and a throw is answered with 500 and logged once', async () => {
    const { logger, lines } = capture();
    const seen: string[] = [];
    class Probe extends GatewayMiddleware {
      constructor() {
        super('gateway_probe', logger);
      }
      protected handle({ req, state, api }: MiddlewareCall): void {
        seen.push(`${state.name}/${api.id}/${req.path}`);
        throw new Error('probe broke');
      }
    }
    const state = makeState([apiSpec({ id: 'a' })]);
    const answer = await answerOf(new Probe(), request(state.name, 'a'));
    assert.deepEqual(seen, [`${state.name}/a//a/x`]);
    assert.equal(answer?.status, 500);
    const errors = lines.filter((l) => l.level === 'error');
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.msg, 'gateway_probe: request refused (500): API a: probe broke');
  });

  it('a message that is not a gateway request passes untouched', async () => {
    const { logger, lines } = capture();
    for (const [, , make] of processors) {
      const msg = new Message(Buffer.from('x'));
      assert.equal(await answerOf(make(logger), msg), undefined);
    }
    assert.deepEqual(lines, []);
  });
});
