/**
 * `engine -w -c FILE` (Benthos' `--watcher`): the stream runs, and when the config file or a
 * `-r` file changes it is read again; a config that loads replaces the running stream, which is
 * stopped first and drains (every message it read is delivered or handed back) within
 * `shutdown_timeout`. A config that does not load is logged and the running stream kept. Runs
 * until a signal: a stream that ends waits for the next change.
 *
 * The folders are watched, not the files: an editor's or `sed -i`'s atomic save writes a new file
 * and renames it over the old one, and a watch on the old file's inode would see nothing after.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { parseDuration } from '../config/duration.js';
import { ConfigError, errorMessage, formatIssue } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import type { Lifecycle } from '../plugin/lifecycle.js';
import type { Stream } from '../runtime/stream.js';
import type { StreamDefinition } from '../streams/stream-builder.js';

/** How long a burst of change events (an editor's save) is gathered into one reload. */
const SETTLE_MS = 200;

export class WatchedStream implements Lifecycle {
  readonly name = 'stream';
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private reloading: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private current: Stream,
    private currentDef: StreamDefinition,
    private readonly files: string[],
    private readonly define: () => Promise<StreamDefinition>,
    private readonly build: (def: StreamDefinition) => Promise<Stream>,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    await this.current.start();
    const names = new Map<string, Set<string>>();
    for (const f of this.files) {
      const full = resolve(f);
      const dir = dirname(full);
      if (!names.has(dir)) names.set(dir, new Set());
      names.get(dir)!.add(basename(full));
    }
    for (const [dir, files] of names) {
      this.watchers.push(
        watch(dir, (_event, name) => {
          if (name !== null && !files.has(name)) return;
          clearTimeout(this.timer);
          this.timer = setTimeout(() => (this.reloading = this.reloading.then(() => this.reload())), SETTLE_MS);
        }),
      );
    }
  }

  private async reload(): Promise<void> {
    if (this.stopped) return;
    let def: StreamDefinition;
    try {
      def = await this.define();
    } catch (err) {
      const why = err instanceof ConfigError ? err.issues.map(formatIssue).join('; ') : errorMessage(err);
      this.log.error(`Failed to reload the config, the running stream is kept: ${why}`);
      return;
    }
    this.log.info('Config changed: draining the running stream, then starting the new one');
    const drained = await this.current.stop(parseDuration(this.currentDef.config.shutdown_timeout));
    if (!drained) this.log.warn('The old stream did not drain within shutdown_timeout');
    if (this.stopped) return;
    try {
      this.current = await this.build(def);
      this.currentDef = def;
      await this.current.start();
      this.log.info('Updated the stream from the changed config');
    } catch (err) {
      this.log.error(`Cannot start the stream from the changed config: ${errorMessage(err)}; fix the file to try again`);
    }
  }

  async stop(timeoutMs: number): Promise<boolean> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const w of this.watchers) w.close();
    await this.reloading;
    return this.current.stop(timeoutMs);
  }

  health(): string[] {
    return this.current.health();
  }
}
