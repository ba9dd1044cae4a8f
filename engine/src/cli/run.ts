import { readFileSync } from 'node:fs';
import { parseDuration } from '../config/duration.js';
import { errorMessage } from '../errors.js';
import { createLogger, type LoggerConfig } from '../observability/logger.js';
import { registry } from '../plugin/registry.js';
import { Stream } from '../runtime/stream.js';
import { StatusBoard } from '../runtime/status.js';
import { ServiceServer } from '../service/http-server.js';
import type { Args } from './args.js';
import { loadBasePlugins, loadStreamConfig, printIssues } from './setup.js';

export function engineVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * `engine -c FILE`: validates (refusing a config with lint errors), starts the service-wide
 * HTTP server and the stream, and shuts down cleanly on SIGINT/SIGTERM (a second signal forces
 * exit). Resolves with the exit code.
 */
export async function run(args: Args): Promise<number> {
  if (!args.config) {
    process.stderr.write('engine: no config given: run engine -c pipeline.yaml (see engine --help)\n');
    return 1;
  }
  const base = await loadBasePlugins(args);
  const { config, issues, plugins } = await loadStreamConfig(args.config, args, base);
  if (issues.length) {
    process.stderr.write(`engine: the config has ${issues.length} problem(s) and was not run:\n`);
    printIssues(issues);
    return 1;
  }
  const loggerConf = { ...config.logger } as LoggerConfig;
  if (args.logLevel) loggerConf.level = args.logLevel.toUpperCase() as LoggerConfig['level'];
  config.logger = loggerConf;
  const logger = createLogger(loggerConf);
  const status = new StatusBoard();
  status.hold('the stream is starting');
  let service: ServiceServer | undefined;
  if (config.http.enabled) {
    service = new ServiceServer(config.http, { status, logger: logger.child({ path: 'root.http' }), version: engineVersion() });
    await service.start();
  }
  const stream = new Stream({ config, registry: registry(), logger, plugins, service, status });
  try {
    await stream.build();
    status.release();
  } catch (err) {
    logger.error(`Cannot start the stream: ${errorMessage(err)}`);
    await service?.close();
    return 1;
  }
  const timeoutMs = parseDuration(config.shutdown_timeout);
  let signals = 0;
  let stopped: Promise<boolean> | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      logger.warn(`Received ${sig} again: forcing exit`);
      process.exit(1);
    }
    logger.info(`Received ${sig}: shutting down`);
    stopped = (async () => {
      const delay = parseDuration(config.shutdown_delay);
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      return stream.stop(timeoutMs);
    })();
    void stopped.then((ok) => {
      if (!ok) process.exit(1);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  logger.info('Launching a stream; press CTRL+C to close');
  let code = 0;
  try {
    await stream.run();
    if (stopped && !(await stopped)) code = 1;
  } catch (err) {
    logger.error(`Stream failed: ${errorMessage(err)}`);
    code = 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await service?.close();
  }
  if (stopped) logger.info('Pipeline has terminated. Goodbye');
  else if (code === 0) logger.info('Input ended and every message was delivered: exiting');
  else logger.info('The stream ended with an error (what it read before was delivered): exiting with code 1');
  return code;
}
