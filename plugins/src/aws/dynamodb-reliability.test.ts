/**
 * At least once, end to end, against moto: the `engine` CLI moves 1,000 records from a Kinesis
 * stream into a DynamoDB table (`aws_dynamodb` output, an item per record keyed by its id) and is
 * SIGKILLed mid-run, then restarted. Every record must be in the table: a record written again
 * after the restart replaces its own item, so the table ends with exactly one item per id.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fillStream, itemsOf, tempStream, tempTable, tempTableName } from './kinesis-test-support.js';
import { engine, killAndRestart, sessionYaml } from './test-support.js';

const TOTAL = 1_000;

describe('aws_dynamodb reliability (1,000 records, SIGKILL mid-run, restart)', () => {
  it('aws_kinesis → aws_dynamodb: none lost, one item per id', async (t) => {
    const source = await tempStream('ddb-rel-src');
    const table = await tempTable('ddb-rel-sink');
    const checkpoints = tempTableName('ddb-rel-ckpt');
    await fillStream(source, TOTAL);
    const input = `  aws_kinesis:
    streams: [ ${source} ]
    dynamodb: { table: ${checkpoints}, create: true }
    commit_period: 200ms
    lease_period: 2s
    rebalance_period: 500ms
    checkpoint_limit: 100
${sessionYaml('    ')}
  processors:
    - sleep: { duration: 5ms }`;
    const output = `  aws_dynamodb:
    table: ${table}
    string_columns: { id: '\${! json("id") }', body: '\${! content() }' }
    batching: { count: 20, period: 100ms }
${sessionYaml('    ')}`;
    const landed = async () => (await itemsOf(table)).length;
    const halfway = await killAndRestart(
      () => engine(input, output),
      landed,
      TOTAL / 5,
      async () => (await landed()) >= TOTAL,
      TOTAL,
    );
    const ids = (await itemsOf(table)).map((i) => Number(i.id!.S));
    assert.equal(ids.length, TOTAL, `${TOTAL - ids.length} lost`);
    assert.deepEqual(
      ids.sort((a, b) => a - b),
      [...Array(TOTAL).keys()],
    );
    t.diagnostic(`killed with ${halfway} of ${TOTAL} items written`);
  });
});
