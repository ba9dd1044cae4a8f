/**
 * The `dynamic` output (Benthos' dynamic output): a fan-out broker whose outputs are named and can
 * be created, replaced and removed while the stream runs, through the HTTP API of dynamic-api.ts.
 * Every batch goes to every output there is (each its own copy) and is acked once all delivered
 * it, or with the first error; while there is none, a batch waits for one (back-pressure).
 */
import { f, type Infer } from '../config/spec.js';
import type { ComponentConfig } from '../config/component-config.js';
import { copyBatch, type Batch } from '../message/message.js';
import type { Ack } from '../message/transaction.js';
import { Signal } from './buffer.js';
import { DynamicApi, type DynamicChildren } from './dynamic-api.js';
import type { Parts, RuntimeComponent } from './runtime-component.js';
import type { Sink } from './sink.js';

const spec = f.object({
  outputs: f.map(f.component('output')).default({}).describe('A map of outputs to statically create.'),
  prefix: f.string().default('').describe('A path prefix for HTTP endpoints that are registered.'),
});
type Conf = Infer<typeof spec>;

class DynamicOutput implements Sink, DynamicChildren {
  private readonly outputs = new Map<string, Sink>();
  private readonly changed = new Signal();
  private closed = false;
  api: DynamicApi | undefined;

  constructor(private readonly parts: Parts) {}

  add(id: string, sink: Sink): void {
    this.outputs.set(id, sink);
    this.changed.notify();
  }

  async send(batch: Batch, done: Ack): Promise<void> {
    while (this.outputs.size === 0) {
      if (this.closed) return done(new Error('the dynamic output closed with no output to deliver to'));
      await this.changed.wait();
    }
    const sinks = [...this.outputs.values()];
    let remaining = sinks.length;
    let settled = false;
    const part: Ack = (err) => {
      if (settled) return;
      if (err || --remaining === 0) {
        settled = true;
        done(err);
      }
    };
    for (const s of sinks) {
      const r = s.send(copyBatch(batch), part);
      if (r) await r;
    }
  }

  async set(id: string, config: ComponentConfig): Promise<void> {
    if (this.closed) throw new Error('the output is closing');
    const sink = await this.parts.sink(config);
    const old = this.outputs.get(id);
    this.add(id, sink);
    await old?.close();
  }

  async remove(id: string): Promise<void> {
    const old = this.outputs.get(id);
    this.outputs.delete(id);
    await old?.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.changed.notify();
    this.api?.unmount();
    await Promise.all([...this.outputs.values()].map((s) => s.close()));
  }
}

export const dynamicOutput: RuntimeComponent<Conf, Sink> = {
  summary:
    'A special broker type where the outputs are identified by unique labels and can be created, changed and removed during runtime via a REST HTTP interface.',
  description:
    'Every message goes to every output (fan out). Endpoints on the service-wide HTTP server (under `prefix`): `GET /outputs`, `GET /outputs/{id}`, `POST /outputs/{id}` (YAML or JSON body), ' +
    '`DELETE /outputs/{id}`, `GET /outputs/{id}/uptime`, as for the dynamic input, with the same `Authorization: Bearer <secret>` (`SVC_STREAMS_API_SECRET`). While there is no output, messages wait.',
  config: spec,
  examples: ['output:\n  dynamic:\n    outputs:\n      local:\n        stdout: {}\n'],
  build: async (conf, ctx, parts) => {
    const output = new DynamicOutput(parts);
    for (const [id, c] of Object.entries(conf.outputs)) output.add(id, await parts.sink(c));
    output.api = new DynamicApi('output', conf.prefix, output, ctx);
    for (const id of Object.keys(conf.outputs)) output.api.running(id);
    return output;
  },
};
