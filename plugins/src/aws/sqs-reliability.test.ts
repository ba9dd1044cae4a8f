/**
 * At least once, end to end, against moto: the `engine` CLI moves 300 messages from an SQS queue
 * to an SQS FIFO queue and is SIGKILLed mid-run, then restarted. Every message must arrive, and
 * none twice: the sink drops a second copy of an id (`message_deduplication_id`), which is how a
 * user gets exactly-once out of an at-least-once pipeline.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOTAL, depth, engine, fifoOutput, fill, killAndRestart, sqsInput, takeAll, tempQueue } from './test-support.js';

describe('aws_sqs reliability (300 messages, SIGKILL mid-run, restart)', () => {
  it('aws_sqs → aws_sqs: none lost, none duplicated', async (t) => {
    const source = await tempQueue('rel-src');
    const sink = await tempQueue('rel-sink', true);
    await fill(source, TOTAL);
    const visible = async () => (await depth(sink)).visible;
    const halfway = await killAndRestart(
      () => engine(sqsInput(source), fifoOutput(sink)),
      visible,
      TOTAL / 5,
      async () => {
        const s = await depth(source);
        return s.visible === 0 && s.inFlight === 0 && (await visible()) >= TOTAL;
      },
    );
    const got = await takeAll(sink);
    const ids = got.map((m) => (JSON.parse(m.Body!) as { id: number }).id);
    assert.equal(new Set(ids).size, TOTAL, `${TOTAL - new Set(ids).size} lost`);
    assert.equal(ids.length, TOTAL, `${ids.length - TOTAL} duplicated`);
    t.diagnostic(`killed with ${halfway} of ${TOTAL} through`);
  });
});
