/**
 * `/svc/apis` and `/svc/apis/oas` (Tyk's `apiHandler` and its OAS siblings): list and get what is
 * loaded; create, update and delete as files in `app_path`, as Tyk writes them (`<id>.json` for
 * classic, `<id>-oas.json` for OAS, 2-space JSON). Like Tyk's, a change goes live with the next
 * reload. A definition is checked by the same loader `app_path` is read with before it is written.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errorMessage, type Answer, type Logger } from '@svc/engine';
import type { ApiSpec } from '../apis/api-spec.js';
import { classicForm } from '../apis/classic-form.js';
import { jsonAnswer, jsonText } from '../kernel/answers.js';
import type { GatewaySource } from '../kernel/gateway-source.js';
import type { GatewayState } from '../kernel/state.js';
import type { ManagementRequest, ManagementRoutes } from './routes.js';
import { MALFORMED, deleteDefinition, modified, parseJson, statusMessage, validPathComponent } from './replies.js';

/** apidef's errors, as Tyk words them. */
const API_NOT_FOUND = statusMessage(404, 'API not found');
const CLASSIC_EXPECTED = statusMessage(400, 'this API endpoint only supports Tyk Classic APIs; please use the appropriate Tyk OAS API endpoint');
const NOT_MIGRATED = statusMessage(400, 'the supplied API definition is in OAS format, please use the Tyk classic format for this API');
const OAS_GET_FOR_OLD = statusMessage(400, 'the requested API definition is in Tyk classic format, please use old api endpoint');
const INVALID_API_ID = statusMessage(400, 'Invalid API ID');
const ID_MISMATCH = statusMessage(400, 'Request APIID does not match that in Definition! For Update operations these must match.');

/** The OAS extension holding the gateway's settings. */
const EXT = 'x-svc-api-gateway';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The id a definition carries: `api_id` (classic) or `x-svc-api-gateway.info.id` (OAS). */
function idOf(def: Obj, format: 'classic' | 'oas'): string {
  if (format === 'classic') return typeof def['api_id'] === 'string' ? def['api_id'] : '';
  const info = isObj(def[EXT]) && isObj((def[EXT] as Obj)['info']) ? ((def[EXT] as Obj)['info'] as Obj) : undefined;
  return typeof info?.['id'] === 'string' ? info['id'] : '';
}

function setId(def: Obj, format: 'classic' | 'oas', id: string): void {
  if (format === 'classic') def['api_id'] = id;
  else {
    const ext = isObj(def[EXT]) ? (def[EXT] as Obj) : (def[EXT] = {});
    const info = isObj(ext['info']) ? (ext['info'] as Obj) : (ext['info'] = {});
    info['id'] = id;
  }
}

export class ApiEndpoints {
  constructor(
    private readonly state: GatewayState,
    private readonly source: GatewaySource,
    private readonly log: Logger,
  ) {}

  private appPath(): string {
    const c = this.state.config;
    return resolve(c.baseDir || '.', c.app_path || '.');
  }

  /** Tyk's routes: classic at `/svc/apis[/{id}]`, OAS at `/svc/apis/oas[/{id}]` (no POST with an id, no PUT or DELETE without). */
  route(routes: ManagementRoutes): void {
    routes
      .add('GET', '/svc/apis', () => this.list(false))
      .add('POST', '/svc/apis', (r) => this.create(r, 'classic'))
      .add('PUT', '/svc/apis', () => statusMessage(400, 'Must specify an apiID to update'))
      .add('DELETE', '/svc/apis', () => statusMessage(400, 'Must specify an apiID to delete'))
      .add('GET', '/svc/apis/{id}', (_r, p) => this.get(p['id']!, false))
      .add('POST', '/svc/apis/{id}', (r) => this.create(r, 'classic'))
      .add('PUT', '/svc/apis/{id}', (r, p) => this.update(r, p['id']!, 'classic'))
      .add('DELETE', '/svc/apis/{id}', (_r, p) => this.remove(p['id']!))
      .add('GET', '/svc/apis/oas', () => this.list(true))
      .add('POST', '/svc/apis/oas', (r) => this.create(r, 'oas'))
      .add('GET', '/svc/apis/oas/{id}', (_r, p) => this.get(p['id']!, true))
      .add('PUT', '/svc/apis/oas/{id}', (r, p) => this.update(r, p['id']!, 'oas'))
      .add('DELETE', '/svc/apis/oas/{id}', (_r, p) => this.remove(p['id']!));
  }

  /** `/svc/apis`: every API in Tyk's classic form (OAS ones too); `/svc/apis/oas`: the OAS documents. */
  private list(oas: boolean): Answer {
    if (oas)
      return jsonAnswer(
        200,
        this.state
          .allApis()
          .filter((a) => a.format === 'oas')
          .map((a) => a.definition),
      );
    return jsonText(`[${this.state.allApis().map(classicForm).join(',')}]`);
  }

  private get(id: string, oas: boolean): Answer {
    const api = this.state.api(id);
    if (!api) return API_NOT_FOUND;
    if (!oas) return jsonText(classicForm(api));
    if (api.format !== 'oas') return OAS_GET_FOR_OLD;
    return jsonAnswer(200, api.definition);
  }

  /** A posted definition: a JSON object, else undefined (Tyk: "Request malformed"). */
  private async definition(r: ManagementRequest): Promise<Obj | undefined> {
    const def = parseJson(await r.body());
    return isObj(def) ? def : undefined;
  }

  private async check(def: Obj, format: 'classic' | 'oas'): Promise<Answer | undefined> {
    try {
      await this.source.parseApi(def, format);
      return undefined;
    } catch (err) {
      return statusMessage(400, `Validation of API Definition failed. Reason: ${errorMessage(err)}.`);
    }
  }

  private async create(r: ManagementRequest, format: 'classic' | 'oas'): Promise<Answer> {
    const d = await this.definition(r);
    if (!d) return MALFORMED;
    let id = idOf(d, format);
    if (!id) setId(d, format, (id = randomUUID().replaceAll('-', '')));
    const refused = await this.check(d, format);
    if (refused) return refused;
    if (!validPathComponent(id)) return INVALID_API_ID;
    return (await this.writeFile(d, id, format)) ?? modified(id, 'added');
  }

  private async update(r: ManagementRequest, id: string, format: 'classic' | 'oas'): Promise<Answer> {
    if (!validPathComponent(id)) return INVALID_API_ID;
    const api = this.state.api(id);
    if (!api) return API_NOT_FOUND;
    if (format === 'oas' && api.format !== 'oas') return NOT_MIGRATED;
    if (format === 'classic' && api.format === 'oas') return CLASSIC_EXPECTED;
    const d = await this.definition(r);
    if (!d) return MALFORMED;
    if (idOf(d, format) !== id) {
      // Tyk's OAS update takes the id from the path when the body has none.
      if (format === 'oas' && idOf(d, format) === '') setId(d, format, id);
      else return ID_MISMATCH;
    }
    const refused = await this.check(d, format);
    if (refused) return refused;
    return (await this.writeFile(d, id, format, api)) ?? modified(id, 'modified');
  }

  /** Writes `<id>.json` or `<id>-oas.json` (or over the file the API was loaded from). */
  private async writeFile(def: Obj, id: string, format: 'classic' | 'oas', loaded?: ApiSpec): Promise<Answer | undefined> {
    const file = loaded?.file ?? join(this.appPath(), format === 'oas' ? `${id}-oas.json` : `${id}.json`);
    try {
      await mkdir(this.appPath(), { recursive: true });
      await writeFile(file, JSON.stringify(def, null, 2));
      return undefined;
    } catch (err) {
      this.log.error(`Failed to create file! - ${errorMessage(err)}`);
      return statusMessage(500, 'file object creation failed, write error');
    }
  }

  private async remove(id: string): Promise<Answer> {
    if (!validPathComponent(id)) return INVALID_API_ID;
    const api = this.state.api(id);
    if (!api) return API_NOT_FOUND;
    const answer = await deleteDefinition(api.file ?? join(this.appPath(), api.format === 'oas' ? `${id}-oas.json` : `${id}.json`), id, this.log);
    // Tyk's pair goes whole (its delete removes `<id>.json` and `<id>-oas.json`): a classic half left behind would load alone.
    if (api.companionFile !== undefined && answer.status === 200) await rm(api.companionFile, { force: true }).catch(() => undefined);
    return answer;
  }
}
