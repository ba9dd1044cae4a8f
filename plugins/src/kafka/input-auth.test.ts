/**
 * The `logbus` / `kafka` input's connection: every SASL mechanism on the broker's SASL listener,
 * and the bad inputs (a wrong password, a wrong address, a topic or partition that does not
 * exist) each as a clear error naming the component, never showing the password.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorMessage, type Input } from '@svc/engine';
import { KafkaFixture, SASL_BROKER, connectInput, readMessages, texts, uid } from './input-test-support.js';

const kafka = new KafkaFixture();
const open: Input[] = [];
before(() => kafka.start());
after(async () => {
  await Promise.all(open.map((i) => i.close?.()));
  await kafka.stop();
});

/** An unsecured OAUTHBEARER token (alg none), as the broker's default validator accepts. */
function unsecuredToken(sub: string): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${b64({ alg: 'none' })}.${b64({ sub, iat: now, exp: now + 3600 })}.`;
}

async function connectError(config: Record<string, unknown>): Promise<string> {
  const { input } = await connectInput(config, false);
  open.push(input);
  try {
    await input.connect!();
  } catch (err) {
    return errorMessage(err);
  }
  assert.fail('connect() succeeded');
}

describe('kafka input connection (real broker)', { timeout: 120_000 }, () => {
  const mechanisms: Array<[string, Record<string, unknown>]> = [
    ['PLAIN', { mechanism: 'PLAIN', user: 'svc', password: 'svc-secret' }],
    ['SCRAM-SHA-256', { mechanism: 'SCRAM-SHA-256', user: 'svc', password: 'svc-secret' }],
    ['SCRAM-SHA-512', { mechanism: 'SCRAM-SHA-512', user: 'svc', password: 'svc-secret' }],
    ['OAUTHBEARER', { mechanism: 'OAUTHBEARER', access_token: unsecuredToken('svc') }],
  ];
  for (const [name, sasl] of mechanisms) {
    it(`consumes through SASL ${name}`, async () => {
      const topic = await kafka.topic(`sasl-${name.toLowerCase()}`, 1);
      await kafka.produceIds(topic, 0, 3);
      const { input } = await connectInput({ addresses: [SASL_BROKER], topics: [topic], consumer_group: `g-${uid()}`, sasl });
      open.push(input);
      assert.deepEqual(texts(await readMessages(input, 3)), ['id-0', 'id-1', 'id-2']);
      await input.close!();
    });
  }

  it('a wrong SASL password: a clear error naming the component and the user, without the password', async () => {
    const topic = await kafka.topic('sasl-wrong', 1);
    const msg = await connectError({
      addresses: [SASL_BROKER],
      topics: [topic],
      consumer_group: 'g',
      sasl: { mechanism: 'SCRAM-SHA-256', user: 'svc', password: 'not-the-Secret-42' },
    });
    assert.match(msg, /kafka input root\.input/);
    assert.match(msg, /SASL SCRAM-SHA-256 authentication as user "svc" failed/);
    assert.match(msg, /check sasl\.user and sasl\.password/);
    assert.doesNotMatch(msg, /not-the-Secret-42/);
  });

  it('a wrong address: a clear error naming the component and the address', async () => {
    const msg = await connectError({ addresses: ['127.0.0.1:1'], topics: ['t'], consumer_group: 'g' });
    assert.match(msg, /kafka input root\.input: cannot connect to 127\.0\.0\.1:1/);
  });

  it('a topic that does not exist, a partition that does not exist: clear errors', async () => {
    const missing = `no-such-topic-${uid()}`;
    const msg = await connectError({ topics: [missing], consumer_group: 'g' });
    assert.match(msg, new RegExp(`kafka input root\\.input: topic "${missing}" does not exist; this input does not create topics`));
    const topic = await kafka.topic('two-partitions', 2);
    const part = await connectError({ topics: [`${topic}:1-3`] });
    assert.match(part, new RegExp(`topic "${topic}" has 2 partitions \\(0-1\\); partitions 2, 3 do not exist`));
  });
});
