/**
 * The `redis_pubsub` output (Redpanda Connect's): PUBLISH of each message to its interpolated
 * `channel`, a batch pipelined. Pub/sub has no delivery guarantee: a write is acknowledged once
 * Redis took the PUBLISH, whether or not anyone was subscribed.
 */
import { batchPolicySpec, compileInterpolation, errorMessage, f, maxInFlightField, registerOutput, type Batch, type Infer, type Output } from '@svc/engine';
import { RedisConnection, redisClientFields } from './client.js';
import { sendBatch, wireValue, type BatchCommand } from './writes.js';

const spec = f.object({
  ...redisClientFields,
  channel: f.string().interpolated().describe('The channel to publish messages to.'),
  max_in_flight: maxInFlightField(64),
  batching: batchPolicySpec,
});
type Conf = Infer<typeof spec>;

class RedisPubSubOutput implements Output {
  private readonly channel;

  constructor(
    conf: Conf,
    private readonly conn: RedisConnection,
  ) {
    this.channel = compileInterpolation(conf.channel);
  }

  async write(batch: Batch): Promise<void> {
    const commands: BatchCommand[] = new Array(batch.length);
    for (let i = 0; i < batch.length; i++) {
      let channel: string;
      try {
        channel = this.channel.value(batch[i]!, { batch, index: i });
      } catch (err) {
        throw new Error(`redis_pubsub: channel interpolation error: ${errorMessage(err)}`);
      }
      commands[i] = { args: ['PUBLISH', channel, wireValue(batch[i]!.content)], messages: [i] };
    }
    await sendBatch(this.conn, commands, batch.length, 'redis_pubsub');
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}

registerOutput('redis_pubsub', {
  summary: 'Publishes messages through the Redis PubSub model. It is not possible to guarantee that messages have been received.',
  description: 'This output will interpolate functions within the channel field. A batch is published as one pipeline.',
  config: spec,
  examples: [
    `output:
  redis_pubsub:
    url: redis://localhost:6379
    channel: 'alerts.\${! this.severity }'`,
  ],
  factory: async (conf, ctx) => new RedisPubSubOutput(conf, await RedisConnection.open(conf, 'redis_pubsub output', ctx.logger)),
});
