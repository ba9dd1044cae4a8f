import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { parseDuration } from '../config/duration.js';
import { ConfigError, InputFailedError, formatIssue } from '../errors.js';
import { createLogger, type LoggerConfig } from '../observability/logger.js';
import { runUntilSignal, type Lifecycle } from '../plugin/lifecycle.js';
import { StatusBoard } from '../runtime/status.js';
import { ServiceServer } from '../service/http-server.js';
import { absoluteModule, buildStream, defineStream, type StreamDefinition } from '../streams/stream-builder.js';
import type { Args } from './args.js';
import { processCount } from './process-count.js';
import { CONFIG_REFUSED_EXIT, announceReady, processName, superviseProcesses } from './process-supervisor.js';
import { printIssues } from './setup.js';
import { processLink } from '../processes/process-link.js';
import { WatchedStream } from './watched-stream.js';

export function engineVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * `engine -c FILE`: validates (refusing a config with lint errors), starts the service-wide
 * HTTP server and the stream, and shuts down cleanly on SIGINT/SIGTERM (a second signal forces
 * exit). Resolves with the exit code. A thin user of the public stream builder. When the input
 * asks for several processes (`processes`), this process becomes their supervisor and each child
 * runs the stream (see process-supervisor.ts).
 */
export async function run(args: Args): Promise<number> {
  if (!args.config) {
    process.stderr.write('engine: no config given: run engine -c pipeline.yaml (see engine --help)\n');
    return 1;
  }
  const file = args.config;
  const define = () =>
    defineStream(
      { file },
      { sets: args.sets, resources: args.resources, plugins: args.plugins.map((p) => absoluteModule(p, process.cwd())), chilled: args.chilled },
    );
  let def;
  try {
    def = await define();
  } catch (err) {
    if (!(err instanceof ConfigError) || err.issues.some((i) => i.line === 0)) throw err;
    process.stderr.write(`engine: the config has ${err.issues.length} problem(s) and was not run:\n`);
    printIssues(err);
    if (!args.chilled && err.issues.some((i) => /^field \S+ not expected at /.test(i.message))) {
      process.stderr.write('engine: shutting down due to linter errors, to prevent shutdown run engine with --chilled\n');
    }
    return 1;
  }
  const { config } = def;
  const loggerConf = { ...config.logger } as LoggerConfig;
  if (args.logLevel) loggerConf.level = args.logLevel.toUpperCase() as LoggerConfig['level'];
  config.logger = loggerConf;
  const processes = processCount(config);
  const timeoutMs = parseDuration(config.shutdown_timeout);
  if (processes > 1 && cluster.isPrimary) {
    return superviseProcesses({ processes, logger: createLogger(loggerConf).child({ process: 'primary' }), timeoutMs });
  }
  // A child listens to the primary before its stream starts (it must acknowledge what every process applies).
  processLink();
  const root = createLogger(loggerConf);
  const logger = cluster.isWorker ? root.child({ process: processName() }) : root;
  for (const lint of def.lints ?? []) logger.warn(`Config lint error: ${formatIssue(lint)}`);
  const status = new StatusBoard();
  status.hold('the stream is starting');
  let service: ServiceServer | undefined;
  if (config.http.enabled) {
    service = new ServiceServer(config.http, { status, logger: logger.child({ path: 'root.http' }), version: engineVersion() });
    await service.start();
  }
  try {
    let stream: Lifecycle;
    const build = (d: StreamDefinition) => buildStream(d, { logger, service, status });
    try {
      const first = await build(def);
      stream = args.watch ? new WatchedStream(first, def, [file, ...args.resources], define, build, logger) : first;
      status.release();
      announceReady();
    } catch (err) {
      logger.error(`Cannot start the stream: ${(err as Error).message}`);
      return 1;
    }
    logger.info(args.watch ? 'Launching a stream, watching its config for changes; press CTRL+C to close' : 'Launching a stream; press CTRL+C to close');
    const { code, signalled, failure } = await runUntilSignal([stream], {
      logger,
      timeoutMs,
      delayMs: parseDuration(config.shutdown_delay),
    });
    if (code === 0) logger.info(signalled ? 'Pipeline has terminated. Goodbye' : 'Input ended and every message was delivered: exiting');
    else if (!signalled) logger.info('The stream ended with an error (what it read before was delivered): exiting with code 1');
    // A child tells its primary the config was refused, so that it is not replaced by one that would fail alike.
    if (cluster.isWorker && failure instanceof InputFailedError && failure.cause instanceof ConfigError) return CONFIG_REFUSED_EXIT;
    return code;
  } finally {
    await service?.close();
  }
}
