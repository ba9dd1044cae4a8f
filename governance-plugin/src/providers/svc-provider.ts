/**
 * The `svc` provider: an svc gateway's management API (`config.host`, its URL; `config.auth`,
 * its secret, sent as `x-svc-authorization`). APIs come from `GET /svc/apis` (Tyk's classic form
 * of each; an OAS API's document from `GET /svc/apis/oas`) and policies from `GET /svc/policies`. Answers are bounded in size and
 * time; garbage is an error for this provider only.
 */
import { redactUrl, scrubSecrets } from '@svc/engine';
import { request } from 'undici';
import { providedApi, type ProvidedApi } from '../wire/api-record.js';
import { ProviderError, type ApiProvider } from './provider.js';

const MAX_BYTES = 256 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

export interface SvcProviderConfig {
  host: string;
  auth: string;
}

function obj(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** One definition as the wire's fields: classic (`api_id`, `proxy.listen_path`) or OAS (`x-svc-api-gateway`). */
export function normaliseSvcApi(def: unknown): ProvidedApi | undefined {
  const d = obj(def);
  const ext = obj(d['x-svc-api-gateway']);
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

export class SvcProvider implements ApiProvider {
  readonly type = 'svc' as const;
  private readonly base: string;

  constructor(
    readonly name: string,
    private readonly config: SvcProviderConfig,
  ) {
    this.base = config.host.replace(/\/+$/, '');
  }

  private async get(path: string): Promise<unknown[]> {
    let res;
    try {
      res = await request(`${this.base}${path}`, {
        headers: { 'x-svc-authorization': this.config.auth, accept: 'application/json' },
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
    if (!Array.isArray(v)) throw new ProviderError(`${this.name}: ${path} did not answer a JSON array`);
    return v;
  }

  async list(emit: (api: ProvidedApi) => Promise<void>): Promise<number> {
    const [apis, policies] = await Promise.all([this.get('/svc/apis'), this.get('/svc/policies')]);
    // `/svc/apis` answers Tyk's classic form of every API; an OAS one (`is_oas`) is taken as its
    // OAS document, from `/svc/apis/oas`, read only when there is one.
    const oas = new Map<string, unknown>();
    if (apis.some((d) => obj(d).is_oas === true))
      for (const doc of await this.get('/svc/apis/oas')) oas.set(str(obj(obj(obj(doc)['x-svc-api-gateway']).info).id), doc);
    let n = 0;
    for (const listed of apis) {
      const def = obj(listed).is_oas === true ? oas.get(str(obj(listed).api_id)) : listed;
      if (def === undefined) continue; // deleted between the two reads
      const api = normaliseSvcApi(def);
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
