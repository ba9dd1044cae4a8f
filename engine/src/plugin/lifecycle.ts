/**
 * Long-running parts of a process that are neither inputs nor outputs (a stream, a hub server,
 * a sync agent), and the one way the CLI runs them: start them in order, run until they end or
 * SIGINT/SIGTERM arrives, then stop them in reverse order within a deadline. A second signal
 * forces exit. A plugin's CLI subcommand (`engine hub ...`) runs its parts the same way.
 */
import type { Logger } from '../observability/logger.js';
import { errorMessage } from '../errors.js';

export interface Lifecycle {
  /** Names the part in logs and in `/ready`. */
  readonly name: string;
  /** Starts it; a rejection is a start-up error (the parts started before it are stopped). */
  start(): Promise<void>;
  /**
   * Stops it, finishing in-flight work (a stream drains); resolves false when that could not be
   * done within `timeoutMs` (the process then exits 1).
   */
  stop(timeoutMs: number): Promise<boolean>;
  /** Settles when the part ended by itself (a finite stream); never for a server. */
  ended?(): Promise<void>;
  /** Why it is not ready, if it is not (shown by `/ready`); empty when healthy. */
  health?(): string[];
}

export interface RunOptions {
  logger: Logger;
  /** The deadline for stopping every part after a signal. */
  timeoutMs: number;
  /** A wait after the first signal before stopping (Benthos' `shutdown_delay`). */
  delayMs?: number;
}

export interface RunOutcome {
  /** 0 when everything stopped cleanly; 1 when a part failed to start, failed, or could not stop in time. */
  code: number;
  /** True when a signal ended the run (rather than the parts ending by themselves). */
  signalled: boolean;
  /** The error a part ended with, when one failed while running. */
  failure?: unknown;
}

/**
 * Starts `parts` in order and runs until every part that can end has ended (when all of them
 * can) or a signal arrives; then stops them in reverse order.
 */
export async function runUntilSignal(parts: Lifecycle[], opts: RunOptions): Promise<RunOutcome> {
  const log = opts.logger;
  const started: Lifecycle[] = [];
  let signals = 0;
  let wake!: (why: 'signal' | 'ended' | 'failed') => void;
  const woken = new Promise<'signal' | 'ended' | 'failed'>((r) => (wake = r));
  const onSignal = (sig: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) {
      log.warn(`Received ${sig} again: forcing exit`);
      process.exit(1);
    }
    log.info(`Received ${sig}: shutting down`);
    wake('signal');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let code = 0;
  let failure: { error: unknown } | undefined;
  try {
    for (const p of parts) {
      try {
        await p.start();
        started.push(p);
      } catch (err) {
        log.error(`Cannot start ${p.name}: ${errorMessage(err)}`);
        code = 1;
        wake('failed');
        break;
      }
    }
    if (code === 0) {
      const finite = parts.filter((p) => p.ended);
      if (finite.length === parts.length && parts.length > 0) {
        void Promise.all(finite.map((p) => p.ended!())).then(
          () => wake('ended'),
          (err: unknown) => {
            log.error(`${parts.length === 1 ? parts[0]!.name : 'A part'} failed: ${errorMessage(err)}`);
            failure ??= { error: err };
            code = 1;
            wake('failed');
          },
        );
      } else {
        for (const p of finite) {
          p.ended!().catch((err: unknown) => {
            log.error(`${p.name} failed: ${errorMessage(err)}`);
            failure ??= { error: err };
            code = 1;
            wake('failed');
          });
        }
      }
    }
    // Signal handlers do not keep Node alive: a part that is idle (no socket, no timer) would
    // let the process exit mid-run without stopping anything.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    const why = await woken.finally(() => clearInterval(keepAlive));
    if (why === 'signal' && opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
    // Parts that ended by themselves have closed already; the others are stopped, last first.
    const running = why === 'ended' ? [] : started.reverse();
    const deadline = Date.now() + opts.timeoutMs;
    for (const p of running) {
      const ok = await p.stop(Math.max(0, deadline - Date.now())).catch((err: unknown) => {
        log.error(`Error stopping ${p.name}: ${errorMessage(err)}`);
        return false;
      });
      if (!ok) code = 1;
    }
    return { code, signalled: why === 'signal', ...(failure ? { failure: failure.error } : {}) };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
