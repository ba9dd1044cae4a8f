/**
 * The `cloudgw` provider: an AWS API Gateway account (`accessKeyId`, `accessKeySecret`,
 * `region`, `sessionToken` for temporary credentials), read with the AWS SDK v3 clients: REST APIs
 * (v1: the API, its stages and resources, and the OpenAPI 3 export of its first stage) and HTTP
 * APIs (v2: the API and its stages). Pages are followed; each API is handed over as it is read.
 * `SVC_CLOUDGW_ENDPOINT` points the clients elsewhere (a test's moto server).
 */
import { providedApi, type ProvidedApi } from '../wire/api-record.js';
import { ProviderError, type ApiProvider } from './provider.js';

export interface CloudGwConfig {
  accessKeyId: string;
  accessKeySecret: string;
  region: string;
  sessionToken?: string;
}

const time = (d: Date | undefined) => (d instanceof Date ? d.getTime() : 0);

export class CloudGwProvider implements ApiProvider {
  readonly type = 'cloudgw' as const;
  private destroy: Array<() => void> = [];

  constructor(
    readonly name: string,
    private readonly config: CloudGwConfig,
  ) {}

  private clientConfig() {
    const endpoint = process.env.SVC_CLOUDGW_ENDPOINT;
    return {
      region: this.config.region,
      credentials: {
        accessKeyId: this.config.accessKeyId,
        secretAccessKey: this.config.accessKeySecret,
        ...(this.config.sessionToken ? { sessionToken: this.config.sessionToken } : {}),
      },
      maxAttempts: 3,
      ...(endpoint ? { endpoint } : {}),
    };
  }

  async list(emit: (api: ProvidedApi) => Promise<void>): Promise<number> {
    const [v1, v2] = await Promise.all([import('@aws-sdk/client-api-gateway'), import('@aws-sdk/client-apigatewayv2')]);
    const rest = new v1.APIGatewayClient(this.clientConfig());
    const http = new v2.ApiGatewayV2Client(this.clientConfig());
    this.destroy = [() => rest.destroy(), () => http.destroy()];
    let n = 0;
    try {
      let position: string | undefined;
      do {
        const page = await rest.send(new v1.GetRestApisCommand({ limit: 500, position }));
        for (const api of page.items ?? []) {
          const id = api.id!;
          const stages = (await rest.send(new v1.GetStagesCommand({ restApiId: id }))).item ?? [];
          const resources = [];
          let rpos: string | undefined;
          do {
            const r = await rest.send(new v1.GetResourcesCommand({ restApiId: id, limit: 500, position: rpos }));
            resources.push(...(r.items ?? []));
            rpos = r.position;
          } while (rpos);
          let exported: unknown;
          const stage = stages[0]?.stageName;
          if (stage) {
            const e = await rest.send(new v1.GetExportCommand({ restApiId: id, stageName: stage, exportType: 'oas30', accepts: 'application/json' }));
            const text = e.body ? Buffer.from(e.body).toString('utf8') : '';
            try {
              exported = text ? JSON.parse(text) : undefined;
            } catch {
              exported = undefined;
            }
          }
          await emit(
            providedApi({
              api_id: id,
              name: api.name ?? id,
              kind: 'rest',
              version: api.version ?? '',
              base_path: stage ? `/${stage}` : '',
              definition: { api, stages, resources, export: exported },
              updatedAtMs: time(api.createdDate),
            }),
          );
          n++;
        }
        position = page.position;
      } while (position);
      let next: string | undefined;
      do {
        const page = await http.send(new v2.GetApisCommand({ MaxResults: '500', NextToken: next }));
        for (const api of page.Items ?? []) {
          const stages = (await http.send(new v2.GetStagesCommand({ ApiId: api.ApiId! }))).Items ?? [];
          await emit(
            providedApi({
              api_id: api.ApiId!,
              name: api.Name ?? api.ApiId!,
              kind: 'http',
              version: api.Version ?? '',
              base_path: stages[0]?.StageName ? `/${stages[0].StageName}` : '',
              definition: { api, stages },
              updatedAtMs: time(api.CreatedDate),
            }),
          );
          n++;
        }
        next = page.NextToken;
      } while (next);
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      // The SDK's messages name the operation and the error, never the secret.
      throw new ProviderError(`${this.name}: AWS API Gateway (${this.config.region}): ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    } finally {
      this.close();
    }
    return n;
  }

  close(): void {
    for (const d of this.destroy.splice(0)) d();
  }
}
