/**
 * `engine streams [-o observability.yaml] a.yaml b.yaml dir/`: several streams in one process
 * (ids from file names), sharing the service HTTP server, metrics and tracer that the `-o` file
 * describes (its http, logger, metrics, tracer and shutdown_timeout sections; defaults without
 * it), with the streams REST API at /streams when a secret is given. The resources of the `-r`
 * files (and of the `-o` file) are built once and shared by every stream.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { parseDuration } from '../config/duration.js';
import { parseConfig, readConfig, validateConfig } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { createLogger, type LoggerConfig } from '../observability/logger.js';
import { runUntilSignal } from '../plugin/lifecycle.js';
import { loadPlugins, BUILTIN_PLUGINS } from '../plugin/load-plugins.js';
import { registry } from '../plugin/registry.js';
import { Builder, newScope } from '../runtime/builder.js';
import { registerCoreComponents } from '../runtime/core-components.js';
import { StatusBoard } from '../runtime/status.js';
import { ServiceServer } from '../service/http-server.js';
import { mountStreamsApi } from '../streams/rest-api.js';
import { absoluteModule } from '../streams/stream-builder.js';
import { Streams } from '../streams/streams.js';
import type { Args } from './args.js';
import { engineVersion } from './run.js';
import { printIssues } from './setup.js';

/** Config files named on the command line; a folder contributes its .yaml/.yml files. */
function streamFiles(paths: string[]): Array<{ id: string; file: string }> {
  const out: Array<{ id: string; file: string }> = [];
  for (const p of paths) {
    if (statSync(p, { throwIfNoEntry: false })?.isDirectory()) {
      for (const name of readdirSync(p).sort()) if (/\.ya?ml$/.test(name)) out.push({ id: basename(name, extname(name)), file: join(p, name) });
    } else out.push({ id: basename(p, extname(p)), file: p });
  }
  return out;
}

export async function streams(args: Args): Promise<number> {
  registerCoreComponents();
  const plugins = args.plugins.map((p) => absoluteModule(p, process.cwd()));
  await loadPlugins([...BUILTIN_PLUGINS, ...plugins]);
  const parsed = args.observability ? readConfig(args.observability) : parseConfig('{}', 'observability.yaml');
  // The `-r` files' resources are built once and shared by every stream (Benthos' streams mode).
  const { config: root, issues } = validateConfig(
    parsed,
    registry(),
    args.resources.map((r) => readConfig(r)),
  );
  if (issues.length) {
    printIssues(issues);
    return 1;
  }
  const loggerConf = { ...root.logger } as LoggerConfig;
  if (args.logLevel) loggerConf.level = args.logLevel.toUpperCase() as LoggerConfig['level'];
  const logger = createLogger(loggerConf);
  const files = streamFiles(args.positional);
  const ids = new Set<string>();
  for (const { id, file } of files) {
    if (ids.has(id)) {
      process.stderr.write(`engine: two stream configs have the id "${id}" (${file}): rename one\n`);
      return 1;
    }
    ids.add(id);
  }
  let streams: Streams | undefined;
  // Not ready until every stream named on the command line has started.
  const starting = new StatusBoard();
  starting.hold('the streams are starting');
  const ready = { notReady: () => [...starting.notReady(), ...(streams?.notReady() ?? [])] };
  const service = root.http.enabled
    ? new ServiceServer(root.http, { status: ready, logger: logger.child({ path: 'root.http' }), version: engineVersion() })
    : undefined;
  await service?.start();
  const scope = newScope();
  const builder = new Builder({ registry: registry(), logger, service, isWorker: false, shared: new Map(), status: new StatusBoard(), scope });
  try {
    // Every series carries its stream's id (label `stream`), as Benthos' streams mode does.
    const observability = await builder.buildObservability(root.metrics, root.tracer, { streamLabel: true });
    await observability.start();
    await builder.buildResources(root);
    const sharedResources = { resources: builder, configs: root, scope, shared: builder.env.shared };
    streams = new Streams({ logger, service, observability, drainTimeoutMs: parseDuration(root.shutdown_timeout), define: { plugins }, sharedResources });
    // Validate every file before starting any, so a typo never leaves half the streams running.
    const defs = [];
    let bad = 0;
    for (const { id, file } of files) {
      try {
        defs.push({ id, def: await streams.define(id, { file }) });
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        printIssues(err);
        bad++;
      }
    }
    if (bad) {
      process.stderr.write(`engine: ${bad} stream config(s) have problems; nothing was run\n`);
      return 1;
    }
    const secret = args.apiSecret ?? process.env.SVC_STREAMS_API_SECRET ?? '';
    if (service && !args.noApi) {
      if (secret) mountStreamsApi(service, streams, { secret, logger: logger.child({ path: 'root.http.streams' }) });
      else logger.warn('The streams REST API is off: give it a secret with --api-secret or SVC_STREAMS_API_SECRET');
    }
    for (const { id, def } of defs) await streams.create(id, def);
    starting.release();
    logger.info(`Running ${defs.length} stream(s); press CTRL+C to close`);
    const { code } = await runUntilSignal([streams], { logger, timeoutMs: parseDuration(root.shutdown_timeout) });
    if (code === 0) logger.info('Every stream has drained. Goodbye');
    return code;
  } finally {
    await streams?.stop(0).catch(() => undefined);
    await builder.obs.close();
    await builder.close();
    await service?.close();
  }
}
