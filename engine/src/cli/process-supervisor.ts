/**
 * The primary of a stream run as several processes (`node:cluster`): every child runs the whole
 * stream and they share the listening sockets (Node 20 has no `reusePort`; the primary accepts
 * and hands connections round-robin). The primary serves nothing itself; it supervises:
 *
 * - a child that crashes (any exit the primary did not ask for) is replaced at once, and the
 *   connections handed to it that it never took are closed (see connection-handoff.ts); a child
 *   that fails before it is ready (a config it cannot start), or whose input refused its config
 *   when it connected ({@link CONFIG_REFUSED_EXIT}), stops the run, as one process would: its
 *   replacement would read the same config;
 * - SIGINT/SIGTERM are passed to every child, each drains its stream as a single process does,
 *   and the primary waits for them (a second signal kills them);
 * - the exit status is 1 when a child crashed during the run or did not stop cleanly.
 *
 * A child tells the primary it is ready with {@link announceReady}.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../observability/logger.js';
import { closeUntakenConnections } from '../processes/connection-handoff.js';
import { ProcessHub } from '../processes/process-hub.js';

/** The message a child sends once its stream started. */
const READY = 'svc:process-ready';

/** A child's exit code when its stream ended on a refused config (sysexits' EX_CONFIG): not a crash to replace. */
export const CONFIG_REFUSED_EXIT = 78;

export interface SupervisorOptions {
  /** How many children run at once. */
  processes: number;
  logger: Logger;
  /** How long children may take to drain after a signal before they are killed. */
  timeoutMs: number;
}

/** Tells the primary (if there is one) that this child's stream started. */
export function announceReady(): void {
  if (cluster.isWorker) process.send?.({ svc: READY });
}

/** The process's place in logs: `primary`, or the child's number (1, 2, ... as forked). */
export function processName(): string {
  return cluster.isWorker ? String(cluster.worker?.id ?? process.pid) : 'primary';
}

/** Forks the children and supervises them until a signal or a start-up failure; resolves with the exit code. */
export function superviseProcesses(opts: SupervisorOptions): Promise<number> {
  const log = opts.logger;
  const ready = new Set<Worker>();
  let crashes = 0;
  let stopping = false;
  let failedToStart = false;
  let uncleanStops = 0;
  let signals = 0;
  let killer: NodeJS.Timeout | undefined;
  // What every child must see alike (shared limits, replicated maps, metrics): see process-link.ts.
  const hub = new ProcessHub();
  hub.start();

  return new Promise<number>((resolve) => {
    const finish = (): void => {
      if (Object.keys(cluster.workers ?? {}).length > 0) return;
      clearTimeout(killer);
      hub.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      const code = crashes > 0 || failedToStart || uncleanStops > 0 ? 1 : 0;
      if (crashes > 0) log.error(`${crashes} child process(es) crashed during the run (each was replaced): exiting with code 1`);
      resolve(code);
    };
    const stopAll = (why: string): void => {
      if (stopping) return;
      stopping = true;
      log.info(`Stopping ${Object.keys(cluster.workers ?? {}).length} child process(es): ${why}`);
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      // Each child stops within its own shutdown_timeout; one that does not is killed a little later.
      killer = setTimeout(() => {
        for (const w of Object.values(cluster.workers ?? {})) {
          log.error(`Child process ${w?.id} did not stop in time: killing it`, { pid: w?.process.pid });
          w?.process.kill('SIGKILL');
        }
      }, opts.timeoutMs + 2_000);
      killer.unref();
      finish();
    };
    const onSignal = (sig: NodeJS.Signals): void => {
      signals++;
      if (signals > 1) {
        log.warn(`Received ${sig} again: killing every child process`);
        for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
        return;
      }
      log.info(`Received ${sig}: shutting down`);
      stopAll(`received ${sig}`);
    };
    const fork = (): void => {
      const w = cluster.fork();
      closeUntakenConnections(w);
      w.on('message', (m: unknown) => {
        if ((m as { svc?: unknown } | null)?.svc !== READY) return;
        ready.add(w);
        log.info(`Child process ${w.id} is serving`, { pid: w.process.pid });
      });
    };
    cluster.on('exit', (w, code, signal) => {
      const wasReady = ready.delete(w);
      const how = signal ? `signal ${signal}` : `code ${code}`;
      if (stopping) {
        if (signal || code !== 0) uncleanStops++;
        log.info(`Child process ${w.id} stopped (${how})`, { pid: w.process.pid });
      } else if (!wasReady || code === CONFIG_REFUSED_EXIT) {
        failedToStart = true;
        const why = wasReady ? 'refused its config' : 'failed before its stream started';
        log.error(`Child process ${w.id} ${why} (${how}): stopping`, { pid: w.process.pid });
        stopAll('a child could not start');
      } else {
        crashes++;
        log.error(`Child process ${w.id} crashed (${how}): starting another`, { pid: w.process.pid });
        fork();
      }
      finish();
    });
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    log.info(`Running the stream in ${opts.processes} processes sharing its listening sockets`);
    for (let i = 0; i < opts.processes; i++) fork();
  });
}
