/**
 * The HTTP API of a `dynamic` input or output (Benthos' api.Dynamic): on the service-wide server
 * at `{prefix}/inputs` (or `/outputs`), `GET` lists every component with its uptime and config,
 * `GET /{id}` gives one config, `POST /{id}` creates or replaces one from a YAML or JSON body,
 * `DELETE /{id}` stops and removes it, `GET /{id}/uptime` says how long it has run. It is a
 * management API and is guarded as the streams API is: every request needs
 * `Authorization: Bearer <secret>` with the secret of `SVC_STREAMS_API_SECRET`; without a secret
 * the API is not mounted (the static components still run); Benthos asks for none. Ids are looked
 * up in Maps; a body is bounded (1 MiB) and parsed and linted as the component's config before
 * anything is built. Static children are listed without their config (it may hold secrets, which
 * Benthos scrubs), posted ones with the text posted.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isMap, type Node } from 'yaml';
import { resolveAliases } from '../config/aliases.js';
import type { ComponentConfig } from '../config/component-config.js';
import { parseConfig } from '../config/load.js';
import { f } from '../config/spec.js';
import { Validator } from '../config/validate.js';
import { errorMessage } from '../errors.js';
import { readBody } from '../http/request-body.js';
import type { Logger } from '../observability/logger.js';
import { registry } from '../plugin/registry.js';
import type { ComponentContext } from '../plugin/types.js';
import { secretMatches } from '../streams/rest-api.js';
import { goDurationString } from './go-duration.js';

const MAX_BODY = 1 << 20;

/** What the API changes: the component's children by id. */
export interface DynamicChildren {
  /** Builds the child from its linted config and puts it in place of the one of that id. */
  set(id: string, config: ComponentConfig): Promise<void>;
  /** Stops and removes the child of that id (nothing when there is none). */
  remove(id: string): Promise<void>;
}

/** Reads a posted child config (YAML or JSON) as the config of `kind` at `path`; throws with the lint errors. */
export function childConfig(kind: 'input' | 'output', text: string, path: string): ComponentConfig {
  const parsed = parseConfig(text, path);
  const issues = [...parsed.issues];
  const node = parsed.doc.contents as Node | null;
  if (issues.length === 0 && !isMap(node)) issues.push({ file: path, line: 1, col: 1, message: `the body must be an ${kind} config (a YAML or JSON object)` });
  let config: ComponentConfig | undefined;
  if (issues.length === 0) {
    const v = new Validator(registry(), path, parsed.lines, resolveAliases(node, path, parsed.lines, issues));
    config = v.value(node, f.component(kind), path) as ComponentConfig | undefined;
    issues.push(...v.issues);
  }
  if (issues.length > 0 || !config) throw new Error(issues.map((i) => `line ${i.line} column ${i.col}: ${i.message}`).join('; '));
  return config;
}

export class DynamicApi {
  /** Each child's config text, as posted (or as the static config wrote it). */
  private readonly configs = new Map<string, string>();
  private readonly hashes = new Map<string, string>();
  /** When each running child started (ns); a child that ended is removed here. */
  private readonly started = new Map<string, bigint>();
  /** Every child that ran and was not deleted (a static child's config is not shown: it may hold secrets). */
  private readonly known = new Set<string>();
  private readonly mounted: string[] = [];
  private readonly log: Logger;
  private readonly path: string;

  constructor(
    private readonly kind: 'input' | 'output',
    prefix: string,
    private readonly children: DynamicChildren,
    ctx: ComponentContext,
  ) {
    this.log = ctx.logger;
    this.path = ctx.path;
    const secret = process.env.SVC_STREAMS_API_SECRET ?? '';
    const base = `/${prefix.replace(/^\/+|\/+$/g, '')}`.replace(/^\/$/, '') + `/${kind}s`;
    if (!ctx.service) return;
    if (!secret) {
      ctx.logger.warn(`The dynamic ${kind} API (${base}) is off: give it a secret with SVC_STREAMS_API_SECRET`);
      return;
    }
    const key = Buffer.from(secret);
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      if (!secretMatches(req.headers.authorization, key)) {
        res.setHeader('WWW-Authenticate', 'Bearer');
        return text(res, 401, `the dynamic ${kind} API needs Authorization: Bearer <secret>`);
      }
      void this.handle(base, req, res).catch((err: unknown) => {
        this.log.error(`dynamic ${kind} API: ${req.method} failed: ${errorMessage(err)}`);
        if (!res.headersSent) text(res, 500, 'internal error');
      });
    };
    for (const path of [base, `${base}/`]) {
      ctx.service.mount(path, handler, `Dynamic ${kind}s: list, create, replace and remove (Bearer secret).`);
      this.mounted.push(path);
    }
    this.unmount = () => {
      for (const p of this.mounted.splice(0)) ctx.service?.unmount(p);
    };
  }

  /** Unmounts the API (set once mounted). */
  unmount: () => void = () => {};

  /** A child started (static at start, or from the API). */
  running(id: string, configText?: string): void {
    this.started.set(id, process.hrtime.bigint());
    this.known.add(id);
    if (configText !== undefined) this.configs.set(id, configText);
  }

  /** A child ended by itself (its uptime reads `stopped`). */
  stopped(id: string): void {
    this.started.delete(id);
  }

  private uptime(id: string): string | undefined {
    const t = this.started.get(id);
    if (t !== undefined) return goDurationString(process.hrtime.bigint() - t);
    return this.known.has(id) ? 'stopped' : undefined;
  }

  private async handle(base: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === base || path === `${base}/`) {
      if (req.method !== 'GET') return text(res, 405, 'method not allowed');
      const out: Record<string, unknown> = {};
      const ids = new Set([...this.known, ...this.configs.keys()]);
      for (const id of [...ids].sort()) {
        const raw = this.configs.get(id) ?? '';
        let config: unknown = null;
        if (raw) config = parseConfig(raw, id).doc.toJS() as unknown;
        Object.defineProperty(out, id, { value: { uptime: this.uptime(id), config, config_raw: raw }, enumerable: true });
      }
      return json(res, 200, out);
    }
    const m = /^\/([^/]+)(\/uptime)?$/.exec(path.slice(base.length));
    if (!m) return text(res, 404, 'not found');
    const id = decodeURIComponent(m[1]!);
    if (m[2]) {
      const up = this.uptime(id);
      return up === undefined ? text(res, 404, `Dynamic component '${id}' is unknown\n`) : text(res, 200, up);
    }
    switch (req.method) {
      case 'GET': {
        const conf = this.configs.get(id);
        return conf === undefined ? text(res, 404, `Dynamic component '${id}' is not active\n`) : text(res, 200, conf);
      }
      case 'POST': {
        let body: string;
        try {
          body = (await readBody(req, MAX_BODY, 10_000)).toString();
        } catch (err) {
          return text(res, 413, `Error: ${errorMessage(err)}`);
        }
        const hash = createHash('sha256').update(body).digest('hex');
        if (this.hashes.get(id) === hash) return text(res, 200, '');
        try {
          const config = childConfig(this.kind, body, `${this.path}.dynamic.${this.kind}s.${id}`);
          await this.children.set(id, config);
        } catch (err) {
          this.log.error(`Failed to set ${this.kind} '${id}': ${errorMessage(err)}`);
          return text(res, 502, `Error: ${errorMessage(err)}\n`);
        }
        this.hashes.set(id, hash);
        this.running(id, body);
        return text(res, 200, '');
      }
      case 'DELETE':
        try {
          await this.children.remove(id);
        } catch (err) {
          return text(res, 502, `Error: ${errorMessage(err)}\n`);
        }
        this.hashes.delete(id);
        this.configs.delete(id);
        this.started.delete(id);
        this.known.delete(id);
        return text(res, 200, '');
      default:
        return text(res, 502, `Error: verb not supported: ${req.method ?? ''}\n`);
    }
  }
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const s = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(s) });
  res.end(s);
}
