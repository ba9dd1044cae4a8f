/**
 * The config of the `logbus` (alias `kafka`) input: every field of docs/spec/streams.md's table, with the
 * checks Benthos makes at construction time turned into lint errors.
 */
import { batchPolicySpec, f, parseDuration, type Infer } from '@svc/engine';
import { clientFields } from './client.js';
import { parseTopics } from './input-topics.js';

const groupSpec = f
  .object({
    session_timeout: f.duration().default('10s').describe('A member that sends no heartbeat for this long is removed from the group.'),
    heartbeat_interval: f.duration().default('3s').describe('How often heartbeats are sent (below session_timeout, about a third of it).'),
    rebalance_timeout: f.duration().default('60s').describe('How long the group waits for its members to rejoin during a rebalance.'),
  })
  .advanced()
  .describe('Tuning of the consumer group protocol.');

const positive = (what: string) => (n: number) => (n >= 1 ? undefined : `${what} must be at least 1`);

function durationMs(text: string | undefined, fallback: number): number {
  try {
    return text === undefined ? fallback : parseDuration(text);
  } catch {
    return fallback;
  }
}

export const inputSpec = f
  .object({
    addresses: clientFields.addresses,
    topics: f
      .array(f.string())
      .validate((items) => {
        try {
          const sel = parseTopics(items);
          return sel.balanced.length + sel.explicit.size === 0 ? 'topics must name at least one topic' : undefined;
        } catch (err) {
          return (err as Error).message;
        }
      })
      .describe(
        'Topics to consume; items may be comma lists. `foo:0` consumes partition 0 of foo only, `foo:0-10` partitions 0 to 10 ' +
          'inclusive: explicit partitions are assigned to this input directly, never balanced. Balanced and explicit topics ' +
          'cannot be mixed in one input.',
      ),
    target_version: clientFields.target_version,
    tls: clientFields.tls,
    sasl: clientFields.sasl,
    consumer_group: f
      .string()
      .default('')
      .describe(
        'The consumer group: offsets are committed under it and its members share the partitions. Empty disables stored offsets (explicit partitions only).',
      ),
    client_id: clientFields.client_id,
    rack_id: clientFields.rack_id,
    start_from_oldest: f
      .bool()
      .default(true)
      .advanced()
      .describe('Where a partition without a committed offset starts: the oldest message (true) or the next new one (false).'),
    checkpoint_limit: f
      .int()
      .default(1024)
      .validate(positive('checkpoint_limit'))
      .describe('The most messages of one partition in flight at once; 1 processes each partition in lock-step order.'),
    auto_replay_nacks: f
      .bool()
      .default(true)
      .describe('Whether a rejected batch is delivered again until it succeeds (true) or dropped and its offset committed (false).'),
    commit_period: f
      .duration()
      .default('1s')
      .advanced()
      .validate((d) => (durationMs(d, 1) > 0 ? undefined : 'commit_period must be a positive duration'))
      .describe('How often acknowledged offsets are committed; they are also committed when partitions are revoked and on shutdown.'),
    stall_check_period: f
      .duration()
      .default('10s')
      .advanced()
      .validate((d) => (durationMs(d, 1) > 0 ? undefined : 'stall_check_period must be a positive duration'))
      .describe(
        "How often each partition's read position is compared with the broker's end offset: a partition with records to read whose fetches delivered none across two checks in a row is reported stalled (gauge `logbus_stalled`, and `/ready` answers 503 naming it).",
      ),
    max_processing_period: f
      .duration()
      .default('100ms')
      .advanced()
      .describe('How long a rebalance waits for in-flight messages of a revoked partition to be acknowledged before committing without them.'),
    extract_tracing_map: f
      .mapping()
      .default('')
      .advanced()
      .describe('A mapping whose result (a text map, e.g. `root = @`) holds the trace context each message continues.'),
    group: groupSpec,
    fetch_buffer_cap: f
      .int()
      .default(256)
      .validate(positive('fetch_buffer_cap'))
      .advanced()
      .describe(
        "The fetched messages per partition waiting to be read at which fetching waits (back-pressure), once they also hold two fetches' worth (2 MiB) of values: a smaller buffer would leave the reader idle during every fetch.",
      ),
    multi_header: f.bool().default(false).advanced().describe('Whether headers are decoded into lists, so that repeated keys keep every value.'),
    batching: batchPolicySpec.advanced().describe('A batch policy applied per partition: every batch comes from one partition.'),
  })
  .validate((c) => {
    if (!Array.isArray(c.topics)) return undefined;
    let sel;
    try {
      sel = parseTopics(c.topics);
    } catch {
      return undefined; // reported on the field itself
    }
    if (sel.balanced.length > 0 && sel.explicit.size > 0) {
      return `topics: balanced topics (${sel.balanced.join(', ')}) and explicit partitions (${[...sel.explicit.keys()].join(', ')}) cannot be mixed in one input: use two inputs under a broker`;
    }
    if (sel.balanced.length > 0 && c.consumer_group === '') {
      return 'consumer_group is required to consume topics without explicit partitions (or name partitions, e.g. foo:0-3)';
    }
    const g = c.group;
    if (g && durationMs(g.heartbeat_interval, 3000) >= durationMs(g.session_timeout, 10_000)) {
      return 'group.heartbeat_interval must be shorter than group.session_timeout (about a third of it)';
    }
    return undefined;
  });

export type InputConfig = Infer<typeof inputSpec>;
