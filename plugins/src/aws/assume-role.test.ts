/**
 * `credentials.role` on the aws_* components, through moto's STS: moto answers AssumeRole with
 * temporary credentials of the role's account and then serves each request in the account of the
 * key that signed it, so a queue made in the role's account is reachable only by a component that
 * assumed the role. A refused AssumeRole (a loopback STS answering 403 as AWS does) is an error
 * that names the role and STS's answer, never the secret.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Message, type Input, type Output } from '@svc/engine';
import { buildComponent, testContext, upstream } from '@svc/engine/testing';
import { MOTO_URL, unique } from './test-support.js';

const REGION = 'us-east-1';
// Another account than moto's default (123456789012): only the role's credentials reach it.
const ROLE = 'arn:aws:iam::210987654321:role/svc-stream';
const SECRET = 'base-secret-never-shown';

/** The role's credentials, as the test asks moto for them directly. */
async function roleClient(): Promise<SQSClient> {
  const sts = new STSClient({ region: REGION, endpoint: MOTO_URL, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const c = (await sts.send(new AssumeRoleCommand({ RoleArn: ROLE, RoleSessionName: 'svc-test' }))).Credentials!;
  sts.destroy();
  return new SQSClient({
    region: REGION,
    endpoint: MOTO_URL,
    credentials: { accessKeyId: c.AccessKeyId!, secretAccessKey: c.SecretAccessKey!, sessionToken: c.SessionToken! },
  });
}

function build<T>(kind: 'input' | 'output', config: Record<string, unknown>): Promise<T> {
  return buildComponent<T>(kind, 'aws_sqs', config, testContext({ type: 'aws_sqs', path: `root.${kind}` }));
}

describe('credentials.role', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const c of cleanups) await c().catch(() => undefined);
  });

  it("writes and reads in the role's account with the credentials moto's STS issued", async () => {
    const roleSqs = await roleClient();
    cleanups.push(async () => roleSqs.destroy());
    const q = (await roleSqs.send(new CreateQueueCommand({ QueueName: unique('role') }))).QueueUrl!;
    cleanups.push(() => roleSqs.send(new DeleteQueueCommand({ QueueUrl: q })));
    assert.match(q, /\/210987654321\//);

    const session = { region: REGION, endpoint: MOTO_URL, credentials: { id: 'test', secret: SECRET, role: ROLE, role_external_id: 'ext-42' } };
    const out = await build<Output>('output', { ...session, url: q });
    await out.connect!();
    await out.write([new Message('one'), new Message('two')]);
    await out.close!();

    // The same queue URL with the base credentials: moto looks the queue up in the base account, where it is not.
    const plain = await build<Output>('output', { region: REGION, endpoint: MOTO_URL, credentials: { id: 'test', secret: SECRET }, url: q, max_retries: 1 });
    await plain.connect!();
    await assert.rejects(plain.write([new Message('three')]), /QueueDoesNotExist|does not exist/);
    await plain.close!();

    const inp = await build<Input>('input', { ...session, url: q, wait_time_seconds: 1 });
    await inp.connect!();
    const got: string[] = [];
    while (got.length < 2) {
      const t = await inp.read();
      assert.ok(typeof t === 'object' && 'batch' in t);
      for (const m of t.batch) got.push(m.content.toString());
      await t.ack();
    }
    await inp.close!();
    assert.deepEqual(got.sort(), ['one', 'two']);
    // Both acked and deleted with the role's credentials: the role's queue is empty.
    const left = await roleSqs.send(new ReceiveMessageCommand({ QueueUrl: q, WaitTimeSeconds: 0 }));
    assert.equal(left.Messages?.length ?? 0, 0);
  });

  it('fails with an error naming the role and STS answer, without the secret, when AssumeRole is refused', async () => {
    const sts = await upstream((_req, _body, res) => {
      res.writeHead(403, { 'content-type': 'text/xml' });
      res.end(
        '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code>' +
          `<Message>User is not authorized to perform: sts:AssumeRole on resource: ${ROLE}</Message></Error><RequestId>r1</RequestId></ErrorResponse>`,
      );
    });
    cleanups.push(() => sts.close());
    const out = await build<Output>('output', {
      region: REGION,
      endpoint: sts.url,
      credentials: { id: 'test', secret: SECRET, role: ROLE, role_external_id: 'ext-42' },
      url: `${sts.url}/123456789012/q`,
      max_retries: 1,
    });
    await out.connect!();
    const err = await out.write([new Message('x')]).then(
      () => undefined,
      (e: unknown) => e,
    );
    await out.close!();
    const text = String(err);
    assert.match(text, /cannot assume role arn:aws:iam::210987654321:role\/svc-stream: AccessDenied/);
    assert.ok(!text.includes(SECRET), text);
    // STS was asked for the role with the external ID; nothing went to SQS unsigned.
    const asked = sts.requests.map((r) => new URLSearchParams(r.body.toString()));
    assert.ok(asked.length >= 1);
    for (const p of asked) {
      assert.equal(p.get('Action'), 'AssumeRole');
      assert.equal(p.get('RoleArn'), ROLE);
      assert.equal(p.get('ExternalId'), 'ext-42');
    }
  });
});
