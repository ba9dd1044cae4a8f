/**
 * At least once, end to end, against moto: the `engine` CLI moves 300 messages from SQS into S3
 * (one object per message, keyed by its id) and is SIGKILLed mid-run, then restarted. Every
 * message must become an object, and none twice (objects keyed by id).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOTAL, depth, engine, fill, keysOf, killAndRestart, sessionYaml, sqsInput, tempBucket, tempQueue } from './test-support.js';

describe('aws_s3 reliability (300 messages, SIGKILL mid-run, restart)', () => {
  it('aws_sqs → aws_s3: none lost, one object per message', async (t) => {
    const source = await tempQueue('rel-s3-src');
    const bucket = await tempBucket('rel');
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

    t.diagnostic(`killed at ${up} of ${TOTAL} objects`);
  });
});
