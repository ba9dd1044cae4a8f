/**
 * The `svc` and `tyk` providers: a gateway's management API (`config.host`, its URL;
 * `config.auth`, its secret, sent as `x-svc-authorization` or `x-tyk-authorization`). APIs come
 * from `GET /svc/apis` or `GET /tyk/apis` (Tyk's classic form of every API), an OAS API's own
 * document from `GET /svc/apis/oas` or `GET /tyk/apis/oas` (with its gateway extension), and
 * policies from `GET /svc/policies` or `GET /tyk/policies`. Answers are bounded in size and time;
 * garbage is an error for this provider only.
 */
import { redactUrl, scrubSecrets } from '@svc/engine';
import { request } from 'undici';
import { providedApi, type ProvidedApi } from '../wire/api-record.js';
import { ProviderError, type ApiProvider } from './provider.js';

const MAX_BYTES = 256 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

export interface GatewayProviderConfig {
  host: string;
  auth: string;
}

/** Which gateway's management API: its path prefix, credential header and OAS extension are named after it. */
export type GatewayKind = 'svc' | 'tyk';

function obj(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** One definition as the wire's fields: classic (`api_id`, `proxy.listen_path`) or OAS (`x-svc-api-gateway` / `x-tyk-api-gateway`). */
export function normaliseGatewayApi(def: unknown, kind: GatewayKind): ProvidedApi | undefined {
  const d = obj(def);
  const ext = obj(d[`x-${kind}-api-gateway`]);
  if (Object.keys(ext).length > 0) {
    const info = obj(ext.info);
    const id = str(info.id);
    if (id === '') return undefined;
    return providedApi({
      api_id: id,
      name: str(info.name) || str(obj(d.info).title),
      kind: 'oas',
      version: str(obj(d.info).version),
      base_path: str(obj(obj(ext.server).listenPath).value),
      definition: def,
    });
  }
  const id = str(d.api_id);
  if (id === '') return undefined;
  return providedApi({ api_id: id, name: str(d.name), kind: 'classic', base_path: str(obj(d.proxy).listen_path), definition: def });
}

export class GatewayProvider implements ApiProvider {
  private readonly base: string;

  constructor(
    readonly name: string,
    readonly type: GatewayKind,
    private readonly config: GatewayProviderConfig,
  ) {
    this.base = config.host.replace(/\/+$/, '');
  }

  private async get(path: string): Promise<unknown[]> {
    let res;
    try {
      res = await request(`${this.base}${path}`, {
        headers: { [`x-${this.type}-authorization`]: this.config.auth, accept: 'application/json' },
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
    } catch (err) {
      throw new ProviderError(
        scrubSecrets(
          `${this.name}: cannot reach ${redactUrl(this.base)}: ${err instanceof Error ? err.message : String(err)}`,
          [this.config.auth],
          [this.base],
        ),
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of res.body) {
      size += (c as Buffer).length;
      if (size > MAX_BYTES) {
        res.body.destroy();
        throw new ProviderError(`${this.name}: ${path} answered more than ${MAX_BYTES} bytes`);
      }
      chunks.push(c as Buffer);
    }
    if (res.statusCode === 403 || res.statusCode === 401)
      throw new ProviderError(`${this.name}: ${path} refused the credential (${res.statusCode}): check instances[].config.auth`);
    if (res.statusCode !== 200) throw new ProviderError(`${this.name}: ${path} answered ${res.statusCode}`);
    let v: unknown;
    try {
      v = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new ProviderError(`${this.name}: ${path} did not answer JSON`);
    }
    // Tyk answers an empty list as `null`.
    if (v === null && this.type === 'tyk') return [];
    if (!Array.isArray(v)) throw new ProviderError(`${this.name}: ${path} did not answer a JSON array`);
    return v;
  }

  async list(emit: (api: ProvidedApi) => Promise<void>): Promise<number> {
    const prefix = `/${this.type}`;
    const [apis, policies] = await Promise.all([this.get(`${prefix}/apis`), this.get(`${prefix}/policies`)]);
    // Both list an OAS API as the classic definition made of it (`is_oas`): its own document,
    // from /apis/oas (read only when there is one), is sent instead.
    const oas = apis.some((d) => obj(d).is_oas === true) ? await this.get(`${prefix}/apis/oas`) : [];
    const oasById = new Map<string, ProvidedApi>();
    for (const def of oas) {
      const api = normaliseGatewayApi(def, this.type);
      if (api?.kind === 'oas') oasById.set(api.api_id, api);
    }
    let n = 0;
    for (const def of apis) {
      // An OAS API missing from /apis/oas was deleted between the two reads.
      const api = obj(def).is_oas === true ? oasById.get(str(obj(def).api_id)) : normaliseGatewayApi(def, this.type);
      if (api === undefined) continue;
      await emit(api);
      n++;
    }
    for (const p of policies) {
      const pol = obj(p);
      const id = str(pol.id) || str(pol._id);
      if (id === '') continue;
      await emit(providedApi({ api_id: `policy:${id}`, name: str(pol.name) || id, kind: 'policy', definition: p }));
      n++;
    }
    return n;
  }
}
