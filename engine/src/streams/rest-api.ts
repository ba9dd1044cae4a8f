/**
 * The streams REST API on the service server, as Benthos' streams mode has it:
 *
 *   GET    /streams          every stream: { id: { active, uptime, uptime_str } }
 *   POST   /streams          the whole set, from a map of id → config (missing ids are removed)
 *   GET    /streams/{id}     { active, uptime, uptime_str, config }
 *   POST   /streams/{id}     create (409 if it exists)
 *   PUT    /streams/{id}     replace (drains the old one first) or create
 *   DELETE /streams/{id}     drain and remove
 *
 * Bodies are YAML or JSON, at most 1 MiB. A config with lint errors is refused with 400 and
 * `{ "lint_errors": [{ "line", "column", "message" }] }`, and whatever ran keeps running.
 * It is a management API: every request must carry `Authorization: Bearer <secret>`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ConfigError, SvcError, errorMessage } from '../errors.js';
import { BodyError, readBody } from '../http/request-body.js';
import type { Logger } from '../observability/logger.js';
import type { ServiceRoutes } from '../plugin/types.js';
import type { StreamDefinition } from './stream-builder.js';
import type { Streams } from './streams.js';

const MAX_BODY = 1 << 20;
/** A body must arrive within this (the service server's own limit for a whole request). */
const BODY_TIMEOUT_MS = 30_000;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** The body as text: a config of at most MAX_BODY bytes, within BODY_TIMEOUT_MS. */
async function readConfig(req: IncomingMessage): Promise<string> {
  try {
    return (await readBody(req, MAX_BODY, BODY_TIMEOUT_MS)).toString('utf8');
  } catch (err) {
    if (!(err instanceof BodyError)) throw err;
    if (err.status === 413) throw new HttpError(413, `a stream config is at most ${MAX_BODY} bytes`);
    throw new HttpError(err.status, err.status === 408 ? 'the stream config did not arrive in time' : 'the request body could not be read');
  }
}

function lintErrors(err: ConfigError): HttpError {
  return new HttpError(400, 'the config has lint errors', {
    lint_errors: err.issues.map((i) => ({ line: i.line, column: i.col, message: i.message })),
  });
}

/** Whether `Authorization` carries `Bearer <secret>` (compared in constant time). */
export function secretMatches(given: string | undefined, secret: Buffer): boolean {
  const m = /^Bearer (.+)$/.exec(given ?? '');
  if (!m) return false;
  const g = Buffer.from(m[1]!);
  return g.length === secret.length && timingSafeEqual(g, secret);
}

/** Mounts the API; returns a function that unmounts it. */
export function mountStreamsApi(service: ServiceRoutes, streams: Streams, opts: { secret: string; logger: Logger }): () => void {
  const secret = Buffer.from(opts.secret);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!secretMatches(req.headers.authorization, secret)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return json(res, 401, { error: 'the streams API needs Authorization: Bearer <secret>' });
    }
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    const m = /\/streams(?:\/([^/]+))?$/.exec(path);
    if (!m) return json(res, 404, { error: 'not found' });
    const id = m[1] === undefined ? undefined : decodeURIComponent(m[1]);
    try {
      if (id === undefined) await collection(req, res, streams);
      else await single(req, res, streams, id);
    } catch (thrown) {
      const err = thrown instanceof ConfigError ? lintErrors(thrown) : thrown;
      if (err instanceof HttpError) return json(res, err.status, err.body ?? { error: err.message });
      if (err instanceof SvcError) return json(res, 400, { error: err.message });
      opts.logger.error(`streams API: ${req.method} ${path} failed: ${errorMessage(err)}`);
      return json(res, 500, { error: 'internal error' });
    }
  };
  const handler = (req: IncomingMessage, res: ServerResponse): void => void handle(req, res);
  service.mount('/streams', handler, 'The streams API: list, create, replace and remove streams (Bearer secret).');
  service.mount('/streams/', handler, 'The streams API: one stream by id.');
  return () => {
    service.unmount('/streams');
    service.unmount('/streams/');
  };
}

async function collection(req: IncomingMessage, res: ServerResponse, streams: Streams): Promise<void> {
  if (req.method === 'GET') {
    const out: Record<string, unknown> = {};
    for (const id of streams.ids()) {
      const { config: _config, ...info } = streams.info(id)!;
      out[id] = info;
    }
    return json(res, 200, out);
  }
  if (req.method !== 'POST') throw new HttpError(405, 'GET or POST');
  const body = parseBody(await readConfig(req));
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'the body must map stream ids to configs');
  // Every config is validated before anything changes: the set is replaced whole or not at all.
  const defs = new Map<string, StreamDefinition>();
  const errors: Record<string, unknown> = {};
  for (const [id, config] of Object.entries(body as Record<string, unknown>)) {
    try {
      defs.set(id, await streams.define(id, { config: config as Record<string, unknown> }));
    } catch (err) {
      if (err instanceof ConfigError) errors[id] = (lintErrors(err).body as { lint_errors: unknown }).lint_errors;
      else errors[id] = [{ line: 0, column: 0, message: errorMessage(err) }];
    }
  }
  if (Object.keys(errors).length) throw new HttpError(400, 'lint errors', { lint_errors: errors });
  for (const id of streams.ids()) if (!defs.has(id)) await streams.remove(id);
  for (const [id, def] of defs) await streams.replace(id, def);
  return json(res, 200, { streams: [...defs.keys()] });
}

async function single(req: IncomingMessage, res: ServerResponse, streams: Streams, id: string): Promise<void> {
  switch (req.method) {
    case 'GET': {
      const info = streams.info(id);
      if (!info) throw new HttpError(404, `no stream "${id}"`);
      return json(res, 200, info);
    }
    case 'POST': {
      if (streams.info(id)) throw new HttpError(409, `stream "${id}" exists already: replace it with PUT`);
      await streams.create(id, { yaml: await readConfig(req), file: `${id}.yaml` });
      return json(res, 200, { created: id });
    }
    case 'PUT':
      await streams.replace(id, { yaml: await readConfig(req), file: `${id}.yaml` });
      return json(res, 200, { replaced: id });
    case 'DELETE':
      if (!(await streams.remove(id))) throw new HttpError(404, `no stream "${id}"`);
      return json(res, 200, { removed: id });
    default:
      throw new HttpError(405, 'GET, POST, PUT or DELETE');
  }
}

function parseBody(text: string): unknown {
  try {
    return parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new HttpError(400, `the body is not YAML or JSON: ${errorMessage(err)}`);
  }
}
