/**
 * The hub's REST API (JSON). The two calls of the governance spec (docs/spec/governance.md) exactly, `POST /api/agents/` and
 * `POST /api/auth/token/`, and the rest of what a hub needs: agents (list, get, delete: its
 * tokens stop working and its streams close), the API repository (search `q`, `provider`,
 * `agent_id`; one API with its definition, secrets masked, and what each sync changed of it),
 * ReSync and the sync history, onboarding (an agent, its token, a license and its
 * agent-config.yaml in one call), licenses for agents, login with the forced first password
 * change, and users' access keys.
 * Management calls need `X-API-Key` (a user's access key) or the session cookie of a login;
 * a missing or wrong one is 401. Errors are `{"status": <code>, "message": "..."}`. Bodies are
 * bounded (1 MiB) and so is the time to send them. A state-changing call from another site's page,
 * or with a body that is not JSON, is refused (cross-site.ts); wrong passwords are throttled by
 * the caller's address (login-throttle.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { errorMessage, parseDuration, stringifyJson, type Logger } from '@svc/engine';
import { BodyError, Router, ThrottledLog, readBody, type BodyStatus } from '@svc/engine/kit';
import type { ProviderType } from '../providers/provider.js';
import { agentConfigYaml, SECRET_VARIABLES } from './agent-config-template.js';
import { agentRecord, rfc3339 } from './agent-view.js';
import { crossSiteProblem } from './cross-site.js';
import { parsedDefinition } from './definition-changes.js';
import { maskedDefinition } from './masked-definition.js';
import { sha256, type HubStore } from './hub-store.js';
import { DatabaseUnavailableError } from './sql.js';
import { LoginThrottle } from './login-throttle.js';
import { checkPassword, hashPassword, newSecret, passwordProblem } from './passwords.js';

const MAX_BODY = 1024 * 1024;
/** A body must arrive within this. */
const BODY_TIMEOUT_MS = 10_000;
const SESSION_COOKIE = 'svc_hub_session';
const SESSION_MS = 8 * 3600_000;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A query parameter as text: refused (400) when it holds a NUL (PostgreSQL text cannot) or is longer than 200 characters. */
function queryText(url: URL, name: string): string | undefined {
  const v = url.searchParams.get(name);
  if (v === null) return undefined;
  if (v.includes('\0') || v.length > 200) throw new HttpError(400, `${name} must be text of at most 200 characters, without NUL`);
  return v;
}

/** A whole-number query parameter between 0 (or `min`) and `max`; absent: `fallback`; anything else is 400. */
function queryInt(url: URL, name: string, fallback: number, min: number, max: number): number {
  const v = url.searchParams.get(name);
  if (v === null || v === '') return fallback;
  if (!/^\d{1,10}$/.test(v) || Number(v) < min || Number(v) > max) throw new HttpError(400, `${name} must be a whole number from ${min} to ${max}`);
  return Number(v);
}

/** A path segment, percent-decoded: 400 when the escape is malformed or decodes to a NUL. */
function segment(text: string): string {
  let v: string;
  try {
    v = decodeURIComponent(text);
  } catch {
    throw new HttpError(400, 'the path has a malformed percent escape');
  }
  if (v.includes('\0')) throw new HttpError(400, 'the path holds a NUL');
  return v;
}

/** What the REST API asks of the rest of the hub. */
export interface HubActions {
  store: HubStore;
  heartbeatIntervalMs: number;
  inactiveAfterMissed: number;
  /** Asks every connected agent to sync; the sync's id and how many agents were asked. */
  resync(): { id: string; agents: number };
  syncProgress(id: string): unknown;
  /** Closes the streams of a deleted agent. */
  disconnect(agentId: string): void;
  /** A governance license signed by this hub's issuer key. */
  license(sub: string, validForSeconds: number): string;
  /** The gRPC address agents dial, `host:port` (a wildcard listen address takes the host the caller reached the hub by). */
  agentAddress(requestHost: string | undefined): string;
}

const iso = (d: Date | string | null) => (d === null ? null : rfc3339(new Date(d)));

/** A call to a route: its request, the parameters of its path, and the user calling (empty on an open route). */
interface HubCall {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Readonly<Record<string, string>>;
  user: string;
}

/** A route of the REST API; `open`: served without a caller (logging in). */
interface HubRoute {
  open?: true;
  serve(call: HubCall): Promise<void> | void;
}

interface Session {
  username: string;
  mustChange: boolean;
  expires: number;
}

/** Refused bodies, in the hub's words. */
const BODY_REFUSED: Record<BodyStatus, string> = {
  413: 'the request body is larger than 1 MiB',
  408: 'the request body did not arrive in time',
  400: 'the request body could not be read',
};

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = (await readBody(req, MAX_BODY, BODY_TIMEOUT_MS)).toString('utf8');
  } catch (err) {
    throw err instanceof BodyError ? new HttpError(err.status, BODY_REFUSED[err.status]) : err;
  }
  if (text.trim() === '') return {};
  // PostgreSQL text cannot hold a NUL: refused here, not as a database error.
  if (text.includes('\\u0000') || text.includes('\0')) throw new HttpError(400, 'the request body holds a NUL character');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'the request body is not valid JSON');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new HttpError(400, 'the request body must be a JSON object');
  return v as Record<string, unknown>;
}

/** A body field that must be a non-empty string of at most 200 characters; trimmed. */
function requiredText(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 200)
    throw new HttpError(400, `${field} must be a non-empty string of at most 200 characters`);
  return value.trim();
}

/** JSON out; numbers held as written (a definition's 64-bit integers) are written as they were read. */
function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = stringifyJson(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** A JWT-like bearer credential: `svcagent.<agent id>.<32 random bytes>`; only its hash is kept. */
function newAgentToken(agentId: string): string {
  return `svcagent.${Buffer.from(agentId).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export class RestApi {
  /** Logins (by SHA-256 of the cookie): kept in this replica's memory, 8 hours. */
  private readonly sessions = new Map<string, Session>();
  private readonly throttle = new LoginThrottle();
  /** 500s: at most 5 lines a second, then a count of the rest. */
  private readonly failures: ThrottledLog;
  private readonly routes: Router<HubRoute>;

  constructor(
    private readonly hub: HubActions,
    log: Logger,
    /** The session cookie is `Secure` (sent over HTTPS only) unless the hub listens on loopback. */
    private readonly secureCookie: boolean,
  ) {
    this.failures = new ThrottledLog(log, 1000, 5);
    this.routes = this.table();
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    this.route(req, res).catch((err: unknown) => {
      if (err instanceof HttpError) return send(res, err.status, { status: err.status, message: err.message }, err.headers);
      // The cause goes to the log (a database error, a bug), never to the caller; no request
      // body, header or query is quoted, so no secret can reach the log this way.
      const path = new URL(req.url ?? '/', 'http://hub').pathname;
      this.failures.error(`${req.method ?? 'GET'} ${path} failed: ${errorMessage(err)}`);
      if (err instanceof DatabaseUnavailableError)
        return send(res, 503, { status: 503, message: 'the database did not answer: try again later (see the hub log)' }, { 'retry-after': '5' });
      send(res, 500, { status: 500, message: 'internal error (see the hub log)' });
    });
  }

  private session(req: IncomingMessage): Session | undefined {
    const c = cookie(req, SESSION_COOKIE);
    if (c === undefined) return undefined;
    const s = this.sessions.get(sha256(c));
    if (s === undefined || s.expires < Date.now()) return undefined;
    return s;
  }

  /** The user calling: by X-API-Key or by login; 401 otherwise (403 until the first password is changed). */
  private async caller(req: IncomingMessage): Promise<string> {
    const key = req.headers['x-api-key'];
    if (typeof key === 'string' && key !== '') {
      const user = await this.hub.store.userOfAccessKey(key);
      if (user === undefined) throw new HttpError(401, 'invalid X-API-Key');
      return user;
    }
    const s = this.session(req);
    if (s === undefined) throw new HttpError(401, 'missing X-API-Key (or log in)');
    if (s.mustChange) throw new HttpError(403, 'change your password first (POST /api/users/me/password)');
    return s.username;
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://hub');
    const method = req.method ?? 'GET';
    const refused = crossSiteProblem(req);
    if (refused !== undefined) throw new HttpError(refused.status, refused.message);
    const found = this.routes.find(method, url.pathname);
    const route = found?.found ? found.value : undefined;
    // Every call but logging in needs a caller, a path no route takes too (401 before 404).
    const user = route?.open === true ? '' : await this.caller(req);
    if (route === undefined) throw new HttpError(404, `no route ${method} ${url.pathname}`);
    return route.serve({ req, res, url, params: found?.found ? found.params : {}, user });
  }

  /** The hub's routes; a trailing slash is optional (`/api/agents` is `/api/agents/`), and a method a path does not take is a 404, as a path no route takes. */
  private table(): Router<HubRoute> {
    const hub = this.hub;
    const store = hub.store;
    const record = (row: Parameters<typeof agentRecord>[0]) => agentRecord(row, hub.heartbeatIntervalMs, hub.inactiveAfterMissed);
    const open = (serve: HubRoute['serve']): HubRoute => ({ open: true, serve });
    const authed = (serve: HubRoute['serve']): HubRoute => ({ serve });
    return new Router<HubRoute>({ trailingSlash: 'ignore', decodeParams: false })
      .add(
        'POST',
        '/api/login/',
        open(({ req, res }) => this.login(req, res)),
      )
      .add(
        'POST',
        '/api/users/me/password/',
        open(({ req, res }) => this.changePassword(req, res)),
      )
      .add(
        'GET',
        '/api/users/me/',
        open(({ req, res }) => {
          const s = this.session(req);
          if (s === undefined) throw new HttpError(401, 'not logged in');
          send(res, 200, { username: s.username, must_change_password: s.mustChange });
        }),
      )
      .add(
        'POST',
        '/api/agents/',
        authed(async ({ req, res }) => {
          const body = await readJson(req);
          const row = await store.createAgent(requiredText(body.name, 'name'));
          send(res, 201, record(row));
        }),
      )
      .add(
        'GET',
        '/api/agents/',
        authed(async ({ res }) => send(res, 200, (await store.agents()).map(record))),
      )
      .add(
        'GET',
        '/api/agents/{id}/',
        authed(async ({ res, params }) => {
          const id = segment(params['id']!);
          const row = await store.agent(id);
          if (row === undefined) throw new HttpError(404, `no agent ${id}`);
          send(res, 200, record(row));
        }),
      )
      .add(
        'DELETE',
        '/api/agents/{id}/',
        authed(async ({ res, params }) => {
          const id = segment(params['id']!);
          if (!(await store.deleteAgent(id))) throw new HttpError(404, `no agent ${id}`);
          hub.disconnect(id);
          send(res, 200, { status: 200, message: `agent ${id} deleted` });
        }),
      )
      .add(
        'POST',
        '/api/auth/token/',
        authed(async ({ req, res }) => {
          const body = await readJson(req);
          const id = body.agent_id;
          if (typeof id !== 'string' || (await store.agent(id)) === undefined) throw new HttpError(404, 'agent_id names no agent');
          const token = newAgentToken(id);
          await store.addToken(id, token);
          send(res, 201, { token });
        }),
      )
      .add(
        'GET',
        '/api/apis/',
        authed(async ({ res, url }) => {
          const rows = await store.apis({
            q: queryText(url, 'q'),
            provider: queryText(url, 'provider'),
            agentId: queryText(url, 'agent_id'),
            limit: queryInt(url, 'limit', 100, 1, 1000),
            offset: queryInt(url, 'offset', 0, 0, 2 ** 31 - 1),
          });
          send(
            res,
            200,
            rows.map((r) => ({
              ...r,
              updated_at: r.updated_at && new Date(r.updated_at).toISOString(),
              synced_at: new Date(r.synced_at).toISOString(),
            })),
          );
        }),
      )
      .add(
        'GET',
        '/api/apis/{id}/',
        authed(async ({ res, params, url }) => {
          const id = segment(params['id']!);
          const row = await store.api(id);
          if (row === undefined) throw new HttpError(404, `no API ${id}`);
          const changes = await store.apiChanges(id, queryInt(url, 'changes', 20, 1, 500));
          send(res, 200, {
            ...row,
            updated_at: row.updated_at && new Date(row.updated_at).toISOString(),
            synced_at: new Date(row.synced_at).toISOString(),
            // As the provider described it, with its secrets masked.
            definition: maskedDefinition(parsedDefinition(row.definition)),
            changes: changes.map((c) => ({ ...c, at: iso(c.at) })),
          });
        }),
      )
      .add(
        'GET',
        '/api/syncs/',
        authed(async ({ res, url }) => {
          const rows = await store.syncHistory({
            agentId: queryText(url, 'agent_id'),
            limit: queryInt(url, 'limit', 50, 1, 1000),
            offset: queryInt(url, 'offset', 0, 0, 2 ** 31 - 1),
          });
          send(
            res,
            200,
            rows.map((h) => ({ ...h, started_at: iso(h.started_at), finished_at: iso(h.finished_at) })),
          );
        }),
      )
      .add(
        'POST',
        '/api/onboarding/',
        authed(async ({ req, res }) => {
          const body = await readJson(req);
          const name = requiredText(body.name, 'name');
          const p = (body.provider ?? {}) as Record<string, unknown>;
          const type = p.type as ProviderType;
          if (!(type in SECRET_VARIABLES)) throw new HttpError(400, 'provider.type must be svc, tyk or cloudgw');
          const address = requiredText(p.address, 'provider.address');
          if (type !== 'cloudgw' && !/^https?:\/\/[^\s"]+$/.test(address))
            throw new HttpError(400, "provider.address must be the gateway's URL, such as http://gateway:8080");
          if (type === 'cloudgw' && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(address))
            throw new HttpError(400, 'provider.address must be an AWS region, such as eu-west-1');
          const providerName = p.name === undefined || p.name === '' ? (type === 'cloudgw' ? 'aws' : `${type}-gateway`) : requiredText(p.name, 'provider.name');
          const syncInterval = body.sync_interval === undefined || body.sync_interval === '' ? '' : requiredText(body.sync_interval, 'sync_interval');
          if (syncInterval !== '' && (!/^(\d+(ms|s|m|h))+$/.test(syncInterval) || parseDuration(syncInterval) < 1000))
            throw new HttpError(400, 'sync_interval must be a duration of at least 1s, such as 5m');
          const days = body.days ?? 365;
          if (typeof days !== 'number' || !(days > 0 && days <= 36500)) throw new HttpError(400, 'days must be a number above 0 and at most 36500');
          const row = await store.createAgent(name);
          const token = newAgentToken(row.id);
          await store.addToken(row.id, token);
          const license = hub.license(name, Math.round(days * 86400));
          send(res, 201, {
            agent: record(row),
            token,
            license,
            secrets_from_environment: SECRET_VARIABLES[type],
            agent_config: agentConfigYaml({
              agentName: name,
              hubAddress: hub.agentAddress(req.headers.host),
              token,
              license,
              provider: { type, name: providerName, address },
              syncInterval,
            }),
            note: 'the token and license are shown once: store agent_config now',
          });
        }),
      )
      .add(
        'POST',
        '/api/sync/',
        authed(({ res }) => send(res, 202, hub.resync())),
      )
      .add(
        'GET',
        '/api/sync/{id}/',
        authed(({ res, params }) => {
          const p = hub.syncProgress(segment(params['id']!));
          if (p === undefined) throw new HttpError(404, 'no such sync');
          send(res, 200, p);
        }),
      )
      .add(
        'POST',
        '/api/licenses/',
        authed(async ({ req, res }) => {
          const body = await readJson(req);
          const days = body.days ?? 365;
          const sub = requiredText(body.sub, 'sub');
          if (typeof days !== 'number' || !(days > 0 && days <= 36500)) throw new HttpError(400, 'days must be a number above 0 and at most 36500');
          send(res, 201, { license: hub.license(sub, Math.round(days * 86400)) });
        }),
      )
      .add(
        'POST',
        '/api/users/me/keys/',
        authed(async ({ req, res, user }) => {
          const body = await readJson(req);
          const name = typeof body.name === 'string' && body.name !== '' ? body.name.slice(0, 200) : 'access key';
          const key = `svckey_${newSecret(24)}`;
          await store.addAccessKey(user, key, name);
          send(res, 201, { key, name, note: 'shown once: store it now' });
        }),
      )
      .add(
        'GET',
        '/api/users/me/keys/',
        authed(async ({ res, user }) => send(res, 200, await store.accessKeys(user))),
      )
      .add(
        'DELETE',
        '/api/users/me/keys/{key}/',
        authed(async ({ res, params, user }) => {
          if (!(await store.revokeAccessKey(user, segment(params['key']!)))) throw new HttpError(404, 'no such key');
          send(res, 200, { status: 200, message: 'revoked' });
        }),
      );
  }

  private async login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req);
    const { username, password } = body;
    if (typeof username !== 'string' || typeof password !== 'string') throw new HttpError(400, 'username and password are required');
    const address = this.throttled(req);
    const user = await this.hub.store.user(username);
    // The same work and the same answer for an unknown user and a wrong password.
    const ok = await checkPassword(password, user?.password_hash ?? 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAA');
    if (user === undefined || !ok) {
      this.throttle.failed(address);
      throw new HttpError(401, 'wrong username or password');
    }
    this.throttle.succeeded(address);
    const token = newSecret(32);
    this.sessions.set(sha256(token), { username, mustChange: user.must_change, expires: Date.now() + SESSION_MS });
    send(
      res,
      200,
      { username, must_change_password: user.must_change },
      { 'set-cookie': `${SESSION_COOKIE}=${token}; HttpOnly;${this.secureCookie ? ' Secure;' : ''} SameSite=Strict; Path=/; Max-Age=${SESSION_MS / 1000}` },
    );
  }

  /** The caller's address; 429 while it must wait after failed passwords. */
  private throttled(req: IncomingMessage): string {
    const address = req.socket.remoteAddress ?? '';
    const wait = this.throttle.retryAfter(address);
    if (wait > 0) throw new HttpError(429, `too many failed passwords from your address: try again in ${wait} s`, { 'retry-after': String(wait) });
    return address;
  }

  private async changePassword(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const s = this.session(req);
    if (s === undefined) throw new HttpError(401, 'log in first');
    const body = await readJson(req);
    // Guessing the current password through a session is throttled as logging in is.
    const address = this.throttled(req);
    const user = await this.hub.store.user(s.username);
    if (user === undefined || typeof body.current_password !== 'string' || !(await checkPassword(body.current_password, user.password_hash))) {
      this.throttle.failed(address);
      throw new HttpError(401, 'current_password is wrong');
    }
    const problem = passwordProblem(body.new_password);
    if (problem !== undefined) throw new HttpError(400, problem);
    if (body.new_password === body.current_password) throw new HttpError(400, 'the new password must differ from the current one');
    await this.hub.store.setPassword(s.username, await hashPassword(body.new_password as string));
    s.mustChange = false;
    send(res, 200, { status: 200, message: 'password changed' });
  }
}
