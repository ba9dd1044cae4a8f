/**
 * At least once, end to end, against moto: the `engine` CLI reads 300 objects from S3
 * (`delete_objects`) into an SQS FIFO queue and is SIGKILLed mid-run, then restarted. Every object
 * must arrive, none twice (the FIFO sink drops a second copy of an id), and the bucket ends empty:
 * an object is deleted only once delivered.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { TOTAL, depth, engine, fifoOutput, keysOf, killAndRestart, s3, sessionYaml, takeAll, tempBucket, tempQueue } from './test-support.js';

describe('aws_s3 input reliability (300 objects, SIGKILL mid-run, restart)', () => {
  it('aws_s3 (delete_objects) → aws_sqs: none lost, none duplicated, the bucket emptied', async (t) => {
    const bucket = await tempBucket('rel-in');
    const sink = await tempQueue('rel-s3-sink', true);
    for (let i = 0; i < TOTAL; i += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, TOTAL - i) }, (_, j) =>
          s3.send(new PutObjectCommand({ Bucket: bucket, Key: `objects/${i + j}.json`, Body: `{"id":${i + j}}` })),
        ),
      );
    }
    const stored = async () => (await keysOf(bucket)).length;
    const s3Input = `  aws_s3:
    bucket: ${bucket}
    prefix: objects/
    delete_objects: true
    force_path_style_urls: true
${sessionYaml('    ')}`;
    const visible = async () => (await depth(sink)).visible;
    const down = await killAndRestart(
      () => engine(s3Input, fifoOutput(sink)),
      visible,
      TOTAL / 5,
      async () => (await stored()) === 0 && (await visible()) >= TOTAL,
    );
    const got = await takeAll(sink);
    const ids = got.map((m) => (JSON.parse(m.Body!) as { id: number }).id);
    assert.equal(new Set(ids).size, TOTAL, `${TOTAL - new Set(ids).size} lost`);
    assert.equal(ids.length, TOTAL, `${ids.length - TOTAL} duplicated`);
    t.diagnostic(`killed with ${down} of ${TOTAL} through`);
  });
});
