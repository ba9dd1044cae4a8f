/**
 * At least once, end to end, against moto: TOTAL (300) objects uploaded to a bucket that sends its
 * ObjectCreated notifications to an SQS queue; the `engine` CLI reads them with the aws_s3 input's
 * `sqs` mode into an SQS FIFO queue and is SIGKILLed mid-run, then restarted. Every object must
 * arrive (the FIFO sink drops a second copy of an id: a notification the killed run held comes back
 * after the queue's 5 s visibility timeout and its object is read again), and the notification
 * queue ends empty: a notification is deleted only once its object was delivered.
 *
 * 300, not 1,000, for the reason test-support gives: moto (one Python process every AWS test shares)
 * answered a receive in 0.45 s on this loaded machine, and 1,000 objects (an upload, a notification,
 * a receive share, a download, a delete and a send each) ran past the runner's 300 s per file.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PutBucketNotificationConfigurationCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { TOTAL, depth, engine, fifoOutput, killAndRestart, s3, sessionYaml, sqs, takeAll, tempBucket, tempQueue } from './test-support.js';

const OBJECTS = TOTAL;

describe('aws_s3 input with sqs.url reliability (300 objects, SIGKILL mid-run, restart)', () => {
  it('aws_s3 (sqs notifications) → aws_sqs: none lost, the notifications all deleted', async (t) => {
    const started = Date.now();
    const bucket = await tempBucket('rel-sqs');
    const notices = await tempQueue('rel-s3-events', false, { VisibilityTimeout: '5' });
    const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: notices, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
    await s3.send(
      new PutBucketNotificationConfigurationCommand({
        Bucket: bucket,
        NotificationConfiguration: { QueueConfigurations: [{ QueueArn: arn, Events: ['s3:ObjectCreated:*'] }] },
      }),
    );
    const sink = await tempQueue('rel-s3-sqs-sink', true);
    for (let i = 0; i < OBJECTS; i += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, OBJECTS - i) }, (_, j) =>
          s3.send(new PutObjectCommand({ Bucket: bucket, Key: `objects/${i + j}.json`, Body: `{"id":${i + j}}` })),
        ),
      );
    }
    t.diagnostic(`uploaded at ${Date.now() - started} ms`);
    const s3Input = `  aws_s3:
    force_path_style_urls: true
    sqs:
      url: ${notices}
      wait_time_seconds: 1
${sessionYaml('    ')}`;
    const visible = async () => (await depth(sink)).visible;
    const down = await killAndRestart(
      () => engine(s3Input, fifoOutput(sink)),
      visible,
      OBJECTS / 5,
      async () => {
        if ((await visible()) < OBJECTS) return false;
        const left = await depth(notices);
        return left.visible === 0 && left.inFlight === 0;
      },
      OBJECTS,
    );
    const got = await takeAll(sink);
    const ids = got.map((m) => (JSON.parse(m.Body!) as { id: number }).id);
    assert.equal(new Set(ids).size, OBJECTS, `${OBJECTS - new Set(ids).size} lost`);
    assert.equal(ids.length, OBJECTS);
    t.diagnostic(`killed with ${down} of ${OBJECTS} through; done at ${Date.now() - started} ms`);
  });
});
