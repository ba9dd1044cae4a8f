/**
 * The `aws_s3` input's `sqs` mode against moto: the bucket sends its ObjectCreated events to a
 * queue (moto delivers them as S3 does, with its test event first); the input downloads the named
 * objects and deletes a notification only once every object it names was acked; a notification
 * through an SNS envelope names two objects; a failed delivery hands the notification back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PutBucketNotificationConfigurationCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { type Input, type Transaction } from '@svc/engine';
import { buildComponent, testContext, waitFor } from '@svc/engine/testing';
import { depth, s3, session, sqs, tempBucket, tempQueue } from './test-support.js';

function input(config: Record<string, unknown>): Promise<Input> {
  return buildComponent<Input>('input', 'aws_s3', { ...session, force_path_style_urls: true, ...config }, testContext({ type: 'aws_s3', path: 'root.input' }));
}

async function readN(i: Input, n: number): Promise<Transaction[]> {
  const out: Transaction[] = [];
  while (out.length < n) {
    const t = await i.read();
    assert.ok(typeof t === 'object' && 'batch' in t, 'a transaction');
    out.push(t);
  }
  return out;
}

/** A queue the bucket sends its ObjectCreated events to. */
async function notifying(bucket: string): Promise<string> {
  const q = await tempQueue('s3-events');
  const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: q, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  await s3.send(
    new PutBucketNotificationConfigurationCommand({
      Bucket: bucket,
      NotificationConfiguration: { QueueConfigurations: [{ QueueArn: arn, Events: ['s3:ObjectCreated:*'] }] },
    }),
  );
  return q;
}

describe('aws_s3 input with sqs.url', () => {
  it("downloads the objects S3's notifications name, deleting each notification once its object was acked", async () => {
    const bucket = await tempBucket('sqs-in');
    const q = await notifying(bucket);
    const keys = ['plain.json', 'dir/a b+c.txt', 'ünï.txt'];
    for (const [i, key] of keys.entries()) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: `body-${i}`, ContentType: 'text/plain' }));
    const i = await input({ sqs: { url: q, wait_time_seconds: 1 } });
    await i.connect!();
    const txs = await readN(i, 3);
    // The runtime reads on at once: that finishes the last object (read to its end) and waits for more.
    const more = i.read();
    const got = new Map(txs.map((t) => [t.batch[0]!.getMetaString('s3_key'), t]));
    assert.deepEqual([...got.keys()].sort(), [...keys].sort());
    for (const [n, key] of keys.entries()) {
      const m = got.get(key)!.batch[0]!;
      assert.equal(m.content.toString(), `body-${n}`);
      assert.equal(m.getMetaString('s3_bucket'), bucket);
      assert.equal(m.getMetaString('s3_content_type'), 'text/plain');
    }
    // Read, not acked: the notifications are still held (S3's test event was deleted).
    await waitFor('the test event deleted', async () => ((await depth(q)).inFlight === 3 ? true : undefined), 10_000);
    await got.get('plain.json')!.ack();
    await waitFor('one notification deleted', async () => ((await depth(q)).inFlight === 2 ? true : undefined), 10_000);
    for (const t of txs) await t.ack();
    await waitFor('all deleted', async () => {
      const d = await depth(q);
      return d.inFlight === 0 && d.visible === 0 ? true : undefined;
    });
    await i.close!();
    await more;
  });

  it('a notification naming two objects (in an SNS envelope) is deleted only once both were acked; a nack hands it back', async () => {
    const bucket = await tempBucket('sqs-env');
    for (const k of ['x/1', 'x/2']) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: k, Body: k }));
    const q = await tempQueue('s3-env');
    const event = { Records: ['x/1', 'x/2'].map((k) => ({ s3: { bucket: { name: bucket }, object: { key: encodeURIComponent(k) } } })) };
    await sqs.send(new SendMessageCommand({ QueueUrl: q, MessageBody: JSON.stringify({ Type: 'Notification', Message: JSON.stringify(event) }) }));
    const i = await input({ sqs: { url: q, envelope_path: 'Message', wait_time_seconds: 1 }, auto_replay_nacks: false });
    await i.connect!();
    const [a, b] = await readN(i, 2);
    assert.deepEqual([a!.batch[0]!.content.toString(), b!.batch[0]!.content.toString()], ['x/1', 'x/2']);
    await a!.ack();
    // Give a wrong delete the time to happen: the notification must stay in flight.
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(await depth(q), { visible: 0, inFlight: 1 });
    // The second object fails: the notification comes back (nack_visibility_timeout 0) and both are read again.
    await b!.ack(new Error('the output refused it'));
    const again = await readN(i, 2);
    assert.deepEqual(
      again.map((t) => t.batch[0]!.content.toString()),
      ['x/1', 'x/2'],
    );
    const more = i.read();
    for (const t of again) await t.ack();
    await waitFor('deleted', async () => {
      const d = await depth(q);
      return d.inFlight === 0 && d.visible === 0 ? true : undefined;
    });
    await i.close!();
    await more;
  });

  it('refuses a config with neither bucket nor sqs.url', async () => {
    await assert.rejects(input({}), /bucket must name the bucket to consume from \(or sqs.url/);
  });
});
