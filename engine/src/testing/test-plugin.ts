/**
 * Components for the engine's own tests, registered through the public plugin API exactly as
 * a user's plugin (so pipeline workers load this module by path too). Not shipped as
 * built-ins: the CLI never loads it.
 */
import { threadId } from 'node:worker_threads';
import { END_OF_INPUT, Message, NotConnectedError, batchPolicySpec, f, registerInput, registerOutput, registerProcessor } from '../index.js';

/** What the test components saw, by name: shared with the test on the main thread. */
export const seen = {
  delivered: new Map<string, string[][]>(),
  acks: new Map<string, { ok: number; nack: number }>(),
  connects: new Map<string, number>(),
  instances: new Map<string, number>(),
};

function bump(map: Map<string, number>, key: string): number {
  const n = (map.get(key) ?? 0) + 1;
  map.set(key, n);
  return n;
}

registerInput('test_source', {
  summary: 'Test input: count messages "0".."count-1" in batches; records acks.',
  config: f.object({
    name: f.string().default('src'),
    count: f.int().default(10),
    batch_size: f.int().default(1),
    fail_connects: f.int().default(0),
    auto_replay_nacks: f.bool().default(true),
  }),
  factory: (conf) => {
    let next = 0;
    const acks = { ok: 0, nack: 0 };
    seen.acks.set(conf.name, acks);
    return {
      async connect() {
        if (bump(seen.connects, conf.name) <= conf.fail_connects) throw new Error('refused (test)');
      },
      read() {
        if (next >= conf.count) return END_OF_INPUT;
        const batch: Message[] = [];
        while (batch.length < conf.batch_size && next < conf.count) batch.push(new Message(String(next++)));
        return { batch, ack: (err?: Error) => (err ? acks.nack++ : acks.ok++) };
      },
    };
  },
});

registerOutput('test_sink', {
  summary: 'Test output: records batches by name; fails the first fail_writes writes.',
  config: f.object({
    name: f.string().default('sink'),
    fail_writes: f.int().default(0),
    disconnect_writes: f.int().default(0),
    max_in_flight: f.int().default(1),
    delay_ms: f.int().default(0),
    batching: batchPolicySpec,
  }),
  factory: (conf) => {
    let writes = 0;
    let disconnects = 0;
    if (bump(seen.instances, conf.name) === 1) seen.delivered.set(conf.name, []);
    return {
      async write(batch) {
        if (conf.delay_ms) await new Promise((r) => setTimeout(r, conf.delay_ms));
        if (disconnects < conf.disconnect_writes) {
          disconnects++;
          throw new NotConnectedError('gone (test)');
        }
        if (writes++ < conf.fail_writes) throw new Error(`write ${writes} refused (test)`);
        seen.delivered.get(conf.name)!.push(batch.map((m) => m.text() + (m.error ? `!${m.error}` : '')));
      },
    };
  },
});

registerProcessor('test_upper', {
  summary: 'Test processor: appends the thread id to each message.',
  config: f.object({}),
  factory: () => ({
    process(batch) {
      for (const m of batch) m.content = Buffer.from(`${m.text()}@${threadId}`);
      return [batch];
    },
  }),
});

registerProcessor('test_throw', {
  summary: 'Test processor: throws on messages whose text is in `on`.',
  config: f.object({ on: f.array(f.string()).default([]) }),
  factory: (conf) => ({
    process(batch) {
      if (batch.some((m) => conf.on.includes(m.text()))) throw new Error('boom (test)');
      return [batch];
    },
  }),
});

registerProcessor('test_split', {
  summary: 'Test processor: splits a batch into batches of one; drops "drop".',
  config: f.object({}),
  factory: () => ({
    process: (batch) => batch.filter((m) => m.text() !== 'drop').map((m) => [m]),
  }),
});
