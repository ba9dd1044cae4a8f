/**
 * The `redis_list` output (Redpanda Connect's): pushes each message onto the list named by its
 * interpolated `key` with RPUSH (or LPUSH). A run of messages in a row with the same key goes in
 * one command (`RPUSH key m1 m2 ...`, the same order as one command each), and a batch's commands
 * are pipelined; the write resolves once Redis answered them all.
 */
import { batchPolicySpec, compileInterpolation, errorMessage, f, maxInFlightField, registerOutput, type Batch, type Infer, type Output } from '@svc/engine';
import { RedisConnection, redisClientFields } from './client.js';
import { sendBatch, wireValue, type BatchCommand } from './writes.js';

const spec = f.object({
  ...redisClientFields,
  key: f.string().interpolated().describe('The key for each message, function interpolations can be optionally used to create a unique key per message.'),
  max_in_flight: maxInFlightField(64),
  batching: batchPolicySpec,
  command: f.enum(['rpush', 'lpush']).default('rpush').advanced().describe('The command used to push elements to the Redis list'),
});
type Conf = Infer<typeof spec>;

class RedisListOutput implements Output {
  private readonly key;
  private readonly command: string;

  constructor(
    conf: Conf,
    private readonly conn: RedisConnection,
  ) {
    this.key = compileInterpolation(conf.key);
    this.command = conf.command.toUpperCase();
  }

  async write(batch: Batch): Promise<void> {
    const commands: BatchCommand[] = [];
    let last: string | undefined;
    for (let i = 0; i < batch.length; i++) {
      let key: string;
      try {
        key = this.key.value(batch[i]!, { batch, index: i });
      } catch (err) {
        throw new Error(`redis_list: key interpolation error: ${errorMessage(err)}`);
      }
      const m = batch[i]!;
      if (key === last) {
        const c = commands[commands.length - 1]!;
        c.args.push(wireValue(m.content));
        c.messages.push(i);
      } else {
        commands.push({ args: [this.command, key, wireValue(m.content)], messages: [i] });
        last = key;
      }
    }
    await sendBatch(this.conn, commands, batch.length, 'redis_list');
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}

registerOutput('redis_list', {
  summary: "Pushes messages onto the end of a Redis list (which is created if it doesn't already exist) using the RPUSH command.",
  description: [
    'The field `key` supports interpolation functions, allowing you to create a unique key for each message.',
    '',
    'A batch is sent as one pipeline, messages in a row with the same key as one RPUSH (or LPUSH) of them all, in',
    'order; the write is acknowledged once Redis answered every command. A command Redis refuses (the key holds',
    'another type) fails only its messages; a lost connection is waited out and the batch written again.',
  ].join('\n'),
  config: spec,
  examples: [
    `output:
  redis_list:
    url: redis://localhost:6379
    key: 'events:\${! meta("tenant") }'
    max_in_flight: 16
    batching:
      count: 100
      period: 50ms`,
  ],
  factory: async (conf, ctx) => new RedisListOutput(conf, await RedisConnection.open(conf, 'redis_list output', ctx.logger)),
});
