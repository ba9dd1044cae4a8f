/**
 * The `dynamic` input (Benthos' dynamic input): a broker whose inputs are named and can be created,
 * replaced and removed while the stream runs, through the HTTP API of dynamic-api.ts. Every
 * child's transactions are merged into one feed, acked through to the child that read them. The
 * feed does not end when the children do (one may be posted later): it ends when the stream
 * closes the input.
 */
import { f, type Infer } from '../config/spec.js';
import type { ComponentConfig } from '../config/component-config.js';
import { END_OF_INPUT, type Transaction } from '../message/transaction.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { Channel } from './channel.js';
import { DynamicApi, type DynamicChildren } from './dynamic-api.js';
import type { Parts, RuntimeComponent } from './runtime-component.js';
import type { Flush, Source, SourceRead } from './source.js';

const spec = f.object({
  inputs: f.map(f.component('input')).default({}).describe('A map of inputs to statically create.'),
  prefix: f.string().default('').describe('A path prefix for HTTP endpoints that are registered.'),
});
type Conf = Infer<typeof spec>;

interface Child {
  source: Source;
  pump: Promise<void>;
}

class DynamicInput implements Source, DynamicChildren {
  private readonly feed = new Channel<Transaction | Flush>(1);
  private readonly children = new Map<string, Child>();
  private closed = false;
  api: DynamicApi | undefined;

  constructor(
    private readonly parts: Parts,
    private readonly log: Logger,
  ) {}

  connect(): Promise<void> {
    return Promise.resolve();
  }

  read(): Promise<SourceRead> | SourceRead {
    return this.feed.pop();
  }

  start(id: string, source: Source): void {
    const child: Child = { source, pump: Promise.resolve() };
    child.pump = (async () => {
      try {
        for (;;) {
          const tx = await source.read();
          if (tx === END_OF_INPUT) break;
          await this.feed.push(tx);
        }
      } catch (err) {
        if (!this.closed) this.log.error(`Dynamic input '${id}' stopped: ${errorMessage(err)}`);
      } finally {
        if (this.children.get(id) === child) {
          this.children.delete(id);
          this.api?.stopped(id);
        }
      }
    })();
    this.children.set(id, child);
  }

  async set(id: string, config: ComponentConfig): Promise<void> {
    if (this.closed) throw new Error('the input is closing');
    const source = await this.parts.source(config);
    await this.remove(id);
    this.start(id, source);
  }

  async remove(id: string): Promise<void> {
    const child = this.children.get(id);
    if (!child) return;
    this.children.delete(id);
    await child.source.close();
    await child.pump;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.api?.unmount();
    const all = [...this.children.values()];
    await Promise.all(all.map((c) => c.source.close()));
    await Promise.all(all.map((c) => c.pump));
    this.feed.close();
  }
}

export const dynamicInput: RuntimeComponent<Conf, Source> = {
  summary:
    'A special broker type where the inputs are identified by unique labels and can be created, changed and removed during runtime via a REST HTTP interface.',
  description:
    'Endpoints on the service-wide HTTP server (under `prefix`): `GET /inputs` (every input with its `uptime`, `config` and `config_raw`), `GET /inputs/{id}` (its config), ' +
    '`POST /inputs/{id}` (create or replace it from a YAML or JSON config in the body), `DELETE /inputs/{id}` (stop and remove it), `GET /inputs/{id}/uptime`. ' +
    'The API is guarded as the streams API is: `Authorization: Bearer <secret>` with the secret of `SVC_STREAMS_API_SECRET`; without it the API is off and the static `inputs` run alone.',
  config: spec,
  examples: ['input:\n  dynamic:\n    inputs:\n      local:\n        stdin: {}\n    prefix: ""\n'],
  build: async (conf, ctx, parts) => {
    const input = new DynamicInput(parts, ctx.logger);
    for (const [id, c] of Object.entries(conf.inputs)) input.start(id, await parts.source(c));
    input.api = new DynamicApi('input', conf.prefix, input, ctx);
    for (const id of Object.keys(conf.inputs)) input.api.running(id);
    return input;
  },
};
