/**
 * Bad input for the amqp_0_9 components, against the real RabbitMQ: wrong addresses and
 * credentials (a clear error naming the component, the password never shown), a queue or an
 * exchange that does not exist (a clear error, and no message lost).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Message } from '@svc/engine';
import { waitFor, EngineProcess } from '@svc/engine/testing';
import { redactUrl } from '@svc/engine';
import {
  AMQP_PLUGIN,
  RABBITMQ_URL,
  broker,
  buildInput,
  buildOutput,
  depth,
  distinctIn,
  fill,
  tempExchange,
  tempQueue,
  unique,
  forgetLater,
  urlOnPort,
  takeAll,
} from './test-support.js';

const PASSWORD = 'Sup3r-S3cret-pw';
/** RABBITMQ_URL with another password. */
function withPassword(url: string, password: string): string {
  const u = new URL(url);
  if (!u.username) u.username = 'guest';
  u.password = password;
  return u.toString();
}

describe('amqp_0_9 bad input', () => {
  it('a wrong address: connect fails naming the component and the redacted URL', async () => {
    const url = withPassword(urlOnPort(1), PASSWORD);
    const input = await buildInput({ urls: [url], queue: 'anything' });
    await assert.rejects(input.connect!(), (err: Error) => {
      assert.ok(err.message.startsWith(`amqp_0_9 input: cannot connect to ${redactUrl(url)}: `), err.message);
      assert.match(err.message, /ECONNREFUSED.*is the broker running/);
      assert.doesNotMatch(err.message, new RegExp(PASSWORD));
      return true;
    });
    const output = await buildOutput({ urls: [url, `${urlOnPort(2)}`], exchange: 'x' });
    await assert.rejects(output.connect!(), (err: Error) => {
      assert.match(err.message, /^amqp_0_9 output: cannot connect to any of 2 URLs: /);
      assert.ok(err.message.includes(redactUrl(url)));
      assert.doesNotMatch(err.message, new RegExp(PASSWORD));
      return true;
    });
  });

  it('wrong credentials: the broker refuses, the error says to check them, without the password', async () => {
    const url = withPassword(RABBITMQ_URL, PASSWORD);
    const input = await buildInput({ urls: [url], queue: 'anything' });
    await assert.rejects(input.connect!(), (err: Error) => {
      assert.match(err.message, /^amqp_0_9 input: cannot connect to .*ACCESS.REFUSED.*check the user and password/s);
      assert.doesNotMatch(err.message, new RegExp(PASSWORD));
      return true;
    });
  });

  it('the engine logs a wrong address with the component path and no password, and keeps retrying', async () => {
    const url = withPassword(urlOnPort(1), PASSWORD);
    const engine = new EngineProcess(
      `http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
  amqp_0_9:
    urls: [ "${url}" ]
    queue: nowhere
output:
  drop: {}
`,
      ['--plugin', AMQP_PLUGIN],
    );
    await waitFor(
      'two failed connection attempts in the log',
      async () => ((engine.output().match(/Failed to connect/g) ?? []).length >= 2 ? true : undefined),
      20_000,
    );
    await engine.stop();
    const log = engine.output();
    assert.match(log, /Failed to connect, retrying in \d+ms: amqp_0_9 input: cannot connect to amqp:\/\/guest:xxxxx@/);
    assert.match(log, /path=root\.input/);
    assert.doesNotMatch(log, new RegExp(PASSWORD));
  });

  it('a queue that does not exist, without queue_declare: a clear error', async () => {
    const queue = unique('missing');
    const input = await buildInput({ urls: [RABBITMQ_URL], queue });
    await assert.rejects(input.connect!(), (err: Error) => {
      assert.match(
        err.message,
        new RegExp(
          `^amqp_0_9 input: cannot consume from queue "${queue}" at amqp://.*NOT_FOUND - no queue.*\\(declare it first, or set queue_declare\\.enabled\\)$`,
        ),
      );
      return true;
    });
  });

  it('publishing to an exchange that does not exist, without exchange_declare: the write fails clearly, the output recovers', async () => {
    const missing = unique('no-exchange');
    const queue = await tempQueue('recovers');
    const existing = await tempExchange('exists', 'fanout');
    await (await broker()).channel.bindQueue(queue, existing, '');
    const out = await buildOutput({ urls: [RABBITMQ_URL], exchange: '${! meta("exchange") }', key: queue });
    await out.connect!();
    await assert.rejects(out.write([new Message('lost?', { exchange: missing })]), (err: Error) => {
      assert.match(
        err.message,
        new RegExp(
          `^amqp_0_9 output: cannot publish to exchange "${missing}" with key ".*": .*NOT_FOUND - no exchange '${missing}'.*; create the exchange, or set exchange_declare\\.enabled`,
        ),
      );
      return true;
    });
    // The broker closed only the channel: the next write opens another.
    await out.write([new Message('delivered', { exchange: existing })]);
    await out.close!();
    assert.deepEqual(
      (await takeAll(queue)).map((m) => m.content.toString()),
      ['delivered'],
    );
  });

  it('end to end: while the exchange is missing nothing is lost; once it exists every message arrives', async () => {
    const source = await tempQueue('source');
    const exchange = unique('late-exchange');
    forgetLater('exchange', exchange);
    await fill(source, 50);
    const engine = new EngineProcess(
      `http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
  amqp_0_9:
    urls: [ "${RABBITMQ_URL}" ]
    queue: ${source}
output:
  amqp_0_9:
    urls: [ "${RABBITMQ_URL}" ]
    exchange: ${exchange}
    key: results
    # Between the exchange appearing and the sink being bound to it, a publish would be routed
    # nowhere and confirmed (dropped): mandatory makes the broker return it, so the write fails
    # and is retried until the binding exists.
    mandatory: true
`,
      ['--plugin', AMQP_PLUGIN],
    );
    try {
      await waitFor('the publish error in the log', async () => (/no exchange/.test(engine.output()) ? true : undefined), 20_000);
      // The messages are still the broker's: ready in the source queue or held (unacked) by the engine.
      assert.match(engine.output(), /path=root\.output/);
      assert.match(engine.output(), /create the exchange, or set exchange_declare\.enabled/);
      const sink = await tempQueue('sink');
      const { channel } = await broker();
      await channel.assertExchange(exchange, 'direct', { durable: false });
      await channel.bindQueue(sink, exchange, 'results');
      await waitFor('every message in the sink', async () => ((await depth(sink)) >= 50 ? true : undefined), 30_000).catch((err: Error) => {
        throw new Error(`${err.message}; the engine said:\n${engine.output().slice(-3000)}`);
      });
      assert.equal(await engine.stop(), 0);
      const { distinct } = await distinctIn(sink);
      assert.equal(distinct.size, 50);
      assert.equal(await depth(source), 0);
    } finally {
      if (!engine.done) await engine.kill();
    }
  });
});
