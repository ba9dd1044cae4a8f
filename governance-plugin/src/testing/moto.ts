/**
 * AWS API Gateway APIs in the shared moto server (scripts/services.sh) for the `cloudgw`
 * provider to read: REST APIs (v1, each with a resource, a GET method and a `prod` stage) and
 * HTTP APIs (v2), in an account of the caller's own (moto keeps accounts apart by access key id).
 */
import { serviceAddress } from '@svc/engine/testing';

export const MOTO_REGION = 'eu-west-1';

/** A 12-digit access key id no other run uses: this run's own moto account. */
export function motoAccount(): string {
  return String(100_000_000_000 + Math.floor(Math.random() * 800_000_000_000));
}

export function motoUrl(): string {
  return serviceAddress('SVC_MOTO_URL');
}

/** Creates the REST and HTTP APIs named; their ids. */
export async function seedMoto(account: string, names: { rest: string[]; http: string[] }): Promise<{ rest: string[]; http: string[] }> {
  const [v1, v2] = await Promise.all([import('@aws-sdk/client-api-gateway'), import('@aws-sdk/client-apigatewayv2')]);
  const conf = { region: MOTO_REGION, endpoint: motoUrl(), credentials: { accessKeyId: account, secretAccessKey: 'moto-secret' } };
  const restClient = new v1.APIGatewayClient(conf);
  const httpClient = new v2.ApiGatewayV2Client(conf);
  const out = { rest: [] as string[], http: [] as string[] };
  for (const name of names.rest) {
    const api = await restClient.send(new v1.CreateRestApiCommand({ name, description: `${name} REST API` }));
    const root = (await restClient.send(new v1.GetResourcesCommand({ restApiId: api.id! }))).items![0]!;
    const res = await restClient.send(new v1.CreateResourceCommand({ restApiId: api.id!, parentId: root.id!, pathPart: name }));
    await restClient.send(new v1.PutMethodCommand({ restApiId: api.id!, resourceId: res.id!, httpMethod: 'GET', authorizationType: 'NONE' }));
    await restClient.send(new v1.PutIntegrationCommand({ restApiId: api.id!, resourceId: res.id!, httpMethod: 'GET', type: 'MOCK' }));
    await restClient.send(new v1.CreateDeploymentCommand({ restApiId: api.id!, stageName: 'prod' }));
    out.rest.push(api.id!);
  }
  for (const name of names.http) out.http.push((await httpClient.send(new v2.CreateApiCommand({ Name: name, ProtocolType: 'HTTP' }))).ApiId!);
  restClient.destroy();
  httpClient.destroy();
  return out;
}

/** The `instances` entry (YAML, indented by 2) of a cloudgw provider reading `account` in moto. */
export const cloudgwInstance = (name: string, account: string) =>
  `  - name: ${name}\n    type: cloudgw\n    config:\n      accessKeyId: "${account}"\n      accessKeySecret: moto-secret\n      region: ${MOTO_REGION}`;
