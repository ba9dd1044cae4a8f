/**
 * At least once, end to end, against moto: the `engine` CLI moves 1,000 records from a Kinesis
 * stream of two shards to another stream (checkpoints in a DynamoDB table) and is SIGKILLed mid-run,
 * then restarted. Every record must arrive; a record may arrive twice only if it was delivered after
 * the last checkpoint the killed run stored (what was in flight or acked and not yet checkpointed).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkpoints, fillStream, ids, readStream, tempStream, tempTableName } from './kinesis-test-support.js';
import { engine, killAndRestart, sessionYaml } from './test-support.js';

const TOTAL = 1_000;

describe('aws_kinesis reliability (1,000 records, SIGKILL mid-run, restart)', () => {
  it('aws_kinesis → aws_kinesis: none lost, duplicates only past the last checkpoint', async (t) => {
    const source = await tempStream('rel-src', 2);
    const sink = await tempStream('rel-sink');
    const table = tempTableName('rel-ckpt');
    await fillStream(source, TOTAL);
    const all = await readStream(source);
    // The killed run's lease (2 s) runs out before the restarted run claims its shards.
    const input = `  aws_kinesis:
    streams: [ ${source} ]
    dynamodb: { table: ${table}, create: true }
    commit_period: 200ms
    lease_period: 2s
    rebalance_period: 500ms
    checkpoint_limit: 100
${sessionYaml('    ')}
  processors:
    - sleep: { duration: 5ms }`;
    // One PutRecords at a time: moto 5.1.22 gives concurrent PutRecords to one shard the same
    // sequence numbers, and the later record replaces the earlier (10 requests of 500 at once kept
    // 4,945 records); AWS does not.
    const output = `  aws_kinesis:
    stream: ${sink}
    partition_key: \${! json("id") }
    batching: { count: 20, period: 100ms }
    max_in_flight: 1
${sessionYaml('    ')}`;
    const landed = async () => (await readStream(sink)).length;
    let committed = 0;
    const halfway = await killAndRestart(
      () => engine(input, output),
      landed,
      TOTAL / 5,
      async () => new Set(ids(await readStream(sink))).size >= TOTAL,
      TOTAL,
      async () => {
        // Records at or before each shard's stored sequence: never delivered again.
        for (const row of await checkpoints(table)) {
          const upTo = all.findIndex((r) => r.shard === row.shard && r.SequenceNumber === row.sequence);
          committed += all.slice(0, upTo + 1).filter((r) => r.shard === row.shard).length;
        }
      },
    );
    const got = ids(await readStream(sink));
    assert.equal(new Set(got).size, TOTAL, `${TOTAL - new Set(got).size} lost`);
    const dupes = got.length - TOTAL;
    assert.ok(dupes <= halfway - committed, `${dupes} duplicated, more than the ${halfway - committed} delivered past the checkpoint at the kill`);
    t.diagnostic(`killed with ${halfway} of ${TOTAL} through, ${committed} checkpointed; ${dupes} duplicated`);
  });
});
