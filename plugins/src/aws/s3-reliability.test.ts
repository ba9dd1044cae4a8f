/**
 * At least once, end to end, against moto: the `engine` CLI moves 1,000 messages from SQS into S3
 * (one object per message, keyed by its id) and is SIGKILLed mid-run, then restarted; then from S3
 * (`delete_objects`) into an SQS FIFO queue, killed and restarted again. Every message must arrive
 * and none twice (objects keyed by id; the FIFO sink drops a second copy of an id), and the bucket
 * ends empty: an object is deleted only once delivered.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOTAL, depth, engine, fifoOutput, fill, keysOf, killAndRestart, sessionYaml, sqsInput, takeAll, tempBucket, tempQueue } from './test-support.js';

describe('aws_s3 reliability (1,000 messages, SIGKILL mid-run, restart)', () => {
  it('aws_sqs → aws_s3, then aws_s3 (delete_objects) → aws_sqs: none lost, none duplicated', async (t) => {
    const source = await tempQueue('rel-s3-src');
    const bucket = await tempBucket('rel');
    const sink = await tempQueue('rel-s3-sink', true);
    await fill(source, TOTAL);
    const s3Output = `  aws_s3:
    bucket: ${bucket}
    path: objects/\${! json("id") }.json
    content_type: application/json
    force_path_style_urls: true
${sessionYaml('    ')}`;
    const stored = async () => (await keysOf(bucket)).length;
    const up = await killAndRestart(
      () => engine(sqsInput(source), s3Output),
      stored,
      TOTAL / 5,
      async () => {
        const s = await depth(source);
        return s.visible === 0 && s.inFlight === 0 && (await stored()) >= TOTAL;
      },
    );
    assert.equal(await stored(), TOTAL, 'one object per message');

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
    t.diagnostic(`SQS → S3 killed at ${up} objects; S3 → SQS killed at ${down} messages`);
  });
});
