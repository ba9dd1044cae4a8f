/**
 * Several streams in one process (Benthos' streams mode), each with an id, sharing one service
 * HTTP server (one route table), one metrics registry and one tracer.
 *
 * The invariant: at most one stream runs under an id, and replacing or removing one drains it
 * first (at least once: whatever it read is delivered or handed back, and requests in flight to
 * its `http_server` are answered) before its replacement mounts its routes.
 */
import { toYamlShape } from '../config/normalised.js';
import { rootSpec } from '../config/root-spec.js';
import { ErrorCode, SvcError } from '../errors.js';
import { registry } from '../plugin/registry.js';
import type { Logger } from '../observability/logger.js';
import type { Observability } from '../observability/observability.js';
import type { Lifecycle } from '../plugin/lifecycle.js';
import type { ServiceRoutes } from '../plugin/types.js';
import type { SharedResources, Stream } from '../runtime/stream.js';
import { StatusBoard, type ComponentStatus } from '../runtime/status.js';
import { buildStream, defineStream, type DefineOptions, type StreamDefinition, type StreamSource } from './stream-builder.js';

export interface StreamsOptions {
  logger: Logger;
  service?: ServiceRoutes;
  /** Shared by every stream; their own `metrics` and `tracer` sections are not used. */
  observability?: Observability;
  /** The drain deadline when a stream is replaced or removed. */
  drainTimeoutMs: number;
  /** Plugin modules and resources every stream definition gets. */
  define?: Omit<DefineOptions, 'sets'>;
  /** Resources every stream shares (`-r` files), built once by the caller; a stream's own come first. */
  sharedResources?: SharedResources;
}

/** What `GET /streams/{id}` tells about a stream. */
export interface StreamInfo {
  active: boolean;
  /** Seconds since it started. */
  uptime: number;
  uptime_str: string;
}

interface Entry {
  stream: Stream;
  def: StreamDefinition;
  since: number;
  active: boolean;
}

const ID = /^[A-Za-z0-9_.-]{1,128}$/;

export class Streams implements Lifecycle {
  readonly name = 'streams';
  private readonly entries = new Map<string, Entry>();
  /** One change at a time per id: a replace never races a delete of the same stream. */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly opts: StreamsOptions) {}

  /** Validates a config for stream `id` without running it (a ConfigError lists the issues). */
  define(id: string, source: StreamSource): Promise<StreamDefinition> {
    checkId(id);
    const src = 'file' in source && source.file !== undefined ? source : { ...source, file: `${id}.yaml` };
    return defineStream(src as StreamSource, this.opts.define);
  }

  /** Starts a new stream; an id in use is an error. */
  create(id: string, source: StreamSource | StreamDefinition): Promise<void> {
    return this.exclusive(id, async () => {
      if (this.entries.has(id)) throw new SvcError(ErrorCode.Usage, `stream "${id}" exists already: replace it (PUT) or delete it first`);
      await this.launch(id, await this.definition(id, source));
    });
  }

  /**
   * Replaces stream `id` (or creates it): the new config is validated first, so a broken one
   * leaves the old stream running; then the old one drains and the new one starts.
   */
  replace(id: string, source: StreamSource | StreamDefinition): Promise<void> {
    return this.exclusive(id, async () => {
      const def = await this.definition(id, source);
      await this.drain(id);
      await this.launch(id, def);
    });
  }

  /** Stops (drains) and forgets stream `id`; false when there is none. */
  remove(id: string): Promise<boolean> {
    return this.exclusive(id, async () => {
      if (!this.entries.has(id)) return false;
      await this.drain(id);
      return true;
    });
  }

  ids(): string[] {
    return [...this.entries.keys()].sort();
  }

  info(id: string): (StreamInfo & { config: unknown }) | undefined {
    const e = this.entries.get(id);
    if (!e) return undefined;
    const uptime = (Date.now() - e.since) / 1000;
    // The config as `engine echo` shows it: defaults filled in, secrets and URL passwords scrubbed.
    return { active: e.active, uptime, uptime_str: `${uptime.toFixed(3)}s`, config: toYamlShape(e.def.config, rootSpec, registry()) };
  }

  /** Lifecycle: streams are created on demand; nothing to start. */
  async start(): Promise<void> {}

  /** Lifecycle: drains every stream in parallel. */
  async stop(timeoutMs: number): Promise<boolean> {
    const ids = this.ids();
    const results = await Promise.all(ids.map((id) => this.exclusive(id, () => this.drain(id, timeoutMs))));
    return results.every(Boolean);
  }

  health(): string[] {
    return this.notReady().map((s) => `${s.kind} ${s.path} (${s.type}): ${s.reason ?? 'not connected'}`);
  }

  /** `/ready`: every active stream's components that are not connected, paths prefixed by the stream id. */
  notReady(): ComponentStatus[] {
    const out: ComponentStatus[] = [];
    for (const [id, e] of this.entries) {
      if (!e.active) continue;
      for (const s of e.stream.status.notReady()) out.push({ ...s, path: `${id}.${s.path}` });
    }
    return out;
  }

  private async definition(id: string, source: StreamSource | StreamDefinition): Promise<StreamDefinition> {
    return 'config' in source && 'plugins' in source ? (source as StreamDefinition) : this.define(id, source as StreamSource);
  }

  private async launch(id: string, def: StreamDefinition): Promise<void> {
    const log = this.opts.logger.child({ stream: id });
    const status = new StatusBoard();
    const stream = await buildStream(def, {
      logger: log,
      service: this.opts.service,
      status,
      observability: this.opts.observability?.forStream(id),
      ...(this.opts.sharedResources ? { sharedResources: this.opts.sharedResources } : {}),
    });
    const entry: Entry = { stream, def, since: Date.now(), active: true };
    this.entries.set(id, entry);
    await stream.start();
    log.info(`Stream ${id} started`);
    stream.wait().then(
      () => {
        entry.active = false;
      },
      (err: unknown) => {
        entry.active = false;
        log.error(`Stream ${id} failed: ${(err as Error).message}`);
      },
    );
  }

  /** Drains and forgets stream `id`; true when it drained in time. */
  private async drain(id: string, timeoutMs = this.opts.drainTimeoutMs): Promise<boolean> {
    const e = this.entries.get(id);
    if (!e) return true;
    const ok = e.active ? await e.stream.stop(timeoutMs) : (await e.stream.wait().catch(() => undefined), true);
    this.entries.delete(id);
    if (!ok) this.opts.logger.error(`Stream ${id} did not drain within ${timeoutMs} ms`);
    return ok;
  }

  private exclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(id) ?? Promise.resolve();
    const next = prev.then(work, work);
    const settled = next.catch(() => undefined);
    this.locks.set(id, settled);
    void settled.then(() => {
      if (this.locks.get(id) === settled) this.locks.delete(id);
    });
    return next;
  }
}

function checkId(id: string): void {
  if (!ID.test(id)) throw new SvcError(ErrorCode.Usage, `stream id "${id}" must be 1-128 letters, digits, ".", "_" or "-"`);
}
