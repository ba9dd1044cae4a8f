/**
 * The `redis_hash` output (Redpanda Connect's): HSET of each message's fields on its interpolated
 * `key`. The fields come, in this order, each later one overwriting a name an earlier one set,
 * from its metadata (`walk_metadata`), from its JSON object (`walk_json_object`) and from `fields`.
 * A batch's HSETs are pipelined; the write resolves once Redis answered them all.
 */
import {
  ErrorCode,
  SvcError,
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
import { argText } from './field-text.js';
import { sendBatch, type BatchCommand } from './writes.js';

const spec = f.object({
  ...redisClientFields,
  key: f.string().interpolated().describe('The key for each message, function interpolations should be used to create a unique key per message.'),
  walk_metadata: f.bool().default(false).describe('Whether all metadata fields of messages should be walked and added to the list of hash fields to set.'),
  walk_json_object: f
    .bool()
    .default(false)
    .describe('Whether to walk each message as a JSON object and add each key/value pair to the list of hash fields to set.'),
  fields: f.map(f.string().interpolated()).default({}).describe('A map of key/value pairs to set as hash fields.'),
  max_in_flight: maxInFlightField(64),
});
type Conf = Infer<typeof spec>;

class RedisHashOutput implements Output {
  private readonly key;
  private readonly fields;

  constructor(
    private readonly conf: Conf,
    private readonly conn: RedisConnection,
  ) {
    this.key = compileInterpolation(conf.key);
    this.fields = Object.entries(conf.fields).map(([k, v]) => [k, compileInterpolation(v)] as const);
  }

  private hashFields(batch: Batch, i: number): Map<string, string | Buffer> {
    const m: Message = batch[i]!;
    const out = new Map<string, string | Buffer>();
    if (this.conf.walk_metadata) for (const [k, v] of m.metaEntries()) out.set(k, argText(v));
    if (this.conf.walk_json_object) {
      let doc: unknown;
      try {
        doc = m.json();
      } catch (err) {
        throw new Error(`walking JSON object: ${errorMessage(err)}`);
      }
      if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
        throw new Error(`walking JSON object: expected JSON object, found ${Array.isArray(doc) ? 'array' : doc === null ? 'null' : typeof doc}`);
      }
      for (const [k, v] of Object.entries(doc)) out.set(k, argText(v));
    }
    for (const [k, v] of this.fields) {
      try {
        out.set(k, v.value(m, { batch, index: i }));
      } catch (err) {
        throw new Error(`field ${k} interpolation error: ${errorMessage(err)}`);
      }
    }
    return out;
  }

  async write(batch: Batch): Promise<void> {
    const commands: BatchCommand[] = new Array(batch.length);
    for (let i = 0; i < batch.length; i++) {
      let key: string;
      try {
        key = this.key.value(batch[i]!, { batch, index: i });
      } catch (err) {
        throw new Error(`redis_hash: key interpolation error: ${errorMessage(err)}`);
      }
      const args: Array<string | Buffer> = ['HSET', key];
      for (const [k, v] of this.hashFields(batch, i)) args.push(k, v);
      commands[i] = { args, messages: [i] };
    }
    await sendBatch(this.conn, commands, batch.length, 'redis_hash');
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}

registerOutput('redis_hash', {
  summary: 'Sets Redis hash objects using the HSET command.',
  description: [
    'The field `key` supports interpolation functions, allowing you to create a unique key for each message. The field',
    '`fields` allows you to specify an explicit map of field names to interpolated values, also evaluated per message',
    'of a batch.',
    '',
    'If the field `walk_metadata` is set to `true` then all metadata fields of messages are added to the list of hash',
    'fields to set. If the field `walk_json_object` is set to `true` then each message is walked as a JSON object,',
    'its keys set to the text of their values (strings as they are, numbers as written, booleans as 1/0, objects and arrays as JSON).',
    '',
    'The order of hash field extraction is as follows: 1. metadata (if enabled), 2. JSON object (if enabled),',
    '3. explicit fields; latter stages overwrite matching field names of a former stage. At least one of the three',
    'must be set. A batch is sent as one pipeline.',
  ].join('\n'),
  config: spec,
  examples: [
    `output:
  redis_hash:
    url: tcp://localhost:6379
    key: \${! json("id") }
    fields:
      topic: \${! meta("kafka_topic") }
      partition: \${! meta("kafka_partition") }
      content: \${! json("document.text") }`,
  ],
  factory: async (conf, ctx) => {
    if (!conf.walk_metadata && !conf.walk_json_object && Object.keys(conf.fields).length === 0) {
      throw new SvcError(
        ErrorCode.ConfigLint,
        'redis_hash: at least one mechanism for setting fields must be enabled (walk_metadata, walk_json_object or fields)',
      );
    }
    return new RedisHashOutput(conf, await RedisConnection.open(conf, 'redis_hash output', ctx.logger));
  },
});
