/**
 * A plugin that adds a CLI subcommand, built on the engine's public stream builder and
 * lifecycle (the shape the gateway's and governance's `engine hub` / `engine agent` take):
 *
 *   engine ticker --plugin ./examples/custom-plugin/ticker.ts [COUNT]
 *
 * It runs a stream made in code (COUNT ticks to stdout) beside a long-running part that is
 * neither input nor output, until SIGINT/SIGTERM; both stop cleanly, the stream drained.
 */
import { buildStream, createLogger, defineStream, registerCommand, runUntilSignal, type Lifecycle, type Logger } from '@svc/engine';

/** A part with a start, a stop and a health: here it only keeps time. */
class Uptime implements Lifecycle {
  readonly name = 'uptime';
  private since = 0;
  constructor(private readonly log: Logger) {}
  async start(): Promise<void> {
    this.since = Date.now();
    this.log.info('uptime started');
  }
  async stop(): Promise<boolean> {
    this.log.info(`uptime stopped after ${Date.now() - this.since} ms`);
    return true;
  }
  health(): string[] {
    return [];
  }
}

registerCommand('ticker', {
  summary: 'Prints COUNT ticks from a stream built in code, beside a lifecycle part, until a signal.',
  usage: 'engine ticker [COUNT]',
  async run(argv) {
    const count = Number(argv[0] ?? 3);
    const logger = createLogger({ level: 'INFO' });
    const def = await defineStream({
      config: {
        http: { enabled: false },
        input: { generate: { count, interval: '10ms', mapping: 'root = "tick " + counter().string()' } },
        output: { stdout: {} },
      },
    });
    const stream = await buildStream(def, { logger });
    const { code } = await runUntilSignal([new Uptime(logger), stream], { logger, timeoutMs: 5000 });
    return code;
  },
});
