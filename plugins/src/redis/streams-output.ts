/**
 * The `redis_streams` output (Redpanda Connect's): adds each message to a stream with XADD, its
 * metadata (less `metadata.exclude_prefixes`) and then its body under `body_key` as the entry's
 * fields (the body wins a clash). A batch's XADDs are pipelined; the write resolves once Redis
 * answered them all.
 */
import {
  batchPolicySpec,
  compileInterpolation,
  errorMessage,
  f,
  maxInFlightField,
  registerOutput,
  type Batch,
  type Infer,
  type Message,
  type Output,
} from '@svc/engine';
import { RedisConnection, redisClientFields } from './client.js';
import { sendBatch, wireValue, type BatchCommand } from './writes.js';

const spec = f.object({
  ...redisClientFields,
  stream: f.string().interpolated().describe('The stream to add messages to.'),
  id: f
    .string()
    .interpolated()
    .default('*')
    .describe(
      'The entry ID for the stream message. When set to `*` (the default), Redis auto-generates a unique ID based on the current time. Set a custom ID to control message ordering.',
    ),
  body_key: f.string().default('body').describe('A key to set the raw body of the message to.'),
  max_length: f.int().default(0).describe('When greater than zero enforces a rough cap on the length of the target stream.'),
  max_in_flight: maxInFlightField(64),
  metadata: f
    .object({
      exclude_prefixes: f
        .array(f.string())
        .default([])
        .describe('Provide a list of explicit metadata key prefixes to be excluded when adding metadata to sent messages.'),
    })
    .describe('Specify criteria for which metadata values are included in the message body.'),
  batching: batchPolicySpec,
});
type Conf = Infer<typeof spec>;

class RedisStreamsOutput implements Output {
  private readonly stream;
  private readonly id;
  private readonly cap: string[];

  constructor(
    private readonly conf: Conf,
    private readonly conn: RedisConnection,
  ) {
    this.stream = compileInterpolation(conf.stream);
    this.id = compileInterpolation(conf.id);
    this.cap = conf.max_length > 0 ? ['MAXLEN', '~', String(conf.max_length)] : [];
  }

  private fields(m: Message): Array<string | Buffer> {
    const out: Array<string | Buffer> = [];
    const exclude = this.conf.metadata.exclude_prefixes;
    for (const [k, v] of m.metaEntries()) {
      if (k === this.conf.body_key || exclude.some((p) => k.startsWith(p))) continue;
      out.push(k, typeof v === 'string' ? v : JSON.stringify(v));
    }
    out.push(this.conf.body_key, wireValue(m.content));
    return out;
  }

  async write(batch: Batch): Promise<void> {
    const commands: BatchCommand[] = new Array(batch.length);
    for (let i = 0; i < batch.length; i++) {
      const m = batch[i]!;
      const x = { batch, index: i };
      let stream: string;
      let id: string;
      try {
        stream = this.stream.value(m, x);
      } catch (err) {
        throw new Error(`redis_streams: stream interpolation error: ${errorMessage(err)}`);
      }
      try {
        id = this.id.value(m, x);
      } catch (err) {
        throw new Error(`redis_streams: id interpolation error: ${errorMessage(err)}`);
      }
      commands[i] = { args: ['XADD', stream, ...this.cap, id, ...this.fields(m)], messages: [i] };
    }
    await sendBatch(this.conn, commands, batch.length, 'redis_streams');
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}

registerOutput('redis_streams', {
  summary: "Pushes messages to a Redis (v5.0+) Stream (which is created if it doesn't already exist) using the XADD command.",
  description: [
    "It's possible to specify a maximum length of the target stream by setting it to a value greater than 0, in which",
    'case this cap is applied only when Redis is able to remove a whole macro node, for efficiency.',
    '',
    'Redis stream entries are key/value pairs, as such it is necessary to specify the key to be set to the body of the',
    'message. All metadata fields of the message will also be set as key/value pairs, if there is a key collision',
    'between a metadata item and the body then the body takes precedence.',
    '',
    "A batch's XADDs are pipelined and the write is acknowledged once Redis answered every one.",
  ].join('\n'),
  config: spec,
  examples: [
    `output:
  redis_streams:
    url: redis://localhost:6379
    stream: 'orders:\${! meta("region") }'
    max_length: 100000
    metadata:
      exclude_prefixes: [ kafka_ ]`,
  ],
  factory: async (conf, ctx) => new RedisStreamsOutput(conf, await RedisConnection.open(conf, 'redis_streams output', ctx.logger)),
});
