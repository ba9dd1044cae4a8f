/**
 * The Helm chart in deploy/helm/svc, as far as it can be checked without a cluster: `helm lint`
 * passes, `helm template` renders it with every part on (a pipeline, the gateway with Redis, the
 * hub with PostgreSQL) and the repository's own gateway files, every rendered object validates
 * against the Kubernetes API schemas (kubernetes-models, generated from the OpenAPI of
 * Kubernetes), and the objects say what running in production needs: readiness on `/ready`,
 * liveness, resources, a non-root user, a PodDisruptionBudget and a CPU autoscaler for the
 * scalable parts, config from ConfigMaps and secrets from Secrets only. The rendered pipeline
 * passes `engine lint`, and the rendered gateway, laid out as the pod mounts it, serves its APIs
 * with the real Redis and takes its management secret from the environment. helm is built by `scripts/services.sh up` (SVC_HELM).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { freePort } from '../testing/free-port.js';
import { serviceAddress, waitFor } from '../testing/services.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHART = join(ROOT, 'deploy/helm/svc');
const ENGINE = join(ROOT, 'engine/dist/cli/main.js');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}
interface Container {
  name: string;
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  readinessProbe?: { httpGet?: { path: string }; tcpSocket?: unknown; exec?: unknown };
  livenessProbe?: unknown;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { runAsNonRoot?: boolean };
}
interface PodTemplate {
  spec: { containers: Container[] };
}

const dir = mkdtempSync(join(tmpdir(), 'svc-helm-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function helm(args: string[]): string {
  const bin = serviceAddress('SVC_HELM');
  assert.ok(bin !== undefined && existsSync(bin), `no helm (SVC_HELM=${bin}): scripts/services.sh up builds it`);
  const r = spawnSync(bin, args, { encoding: 'utf8', env: { ...process.env, HELM_CACHE_HOME: dir, HELM_CONFIG_HOME: dir, HELM_DATA_HOME: dir } });
  assert.equal(r.status, 0, `helm ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

const EVERYTHING = [
  '--set',
  'gateway.enabled=true',
  '--set',
  'hub.enabled=true',
  '--set-file',
  `gateway.apis.engine\\.json=${join(ROOT, 'configs/gateway/apis/engine.json')}`,
  '--set-file',
  `gateway.apis.secure\\.json=${join(ROOT, 'configs/gateway/apis/secure.json')}`,
  '--set-file',
  `gateway.policies.default\\.json=${join(ROOT, 'configs/gateway/policies/default.json')}`,
];

describe('the Helm chart (deploy/helm/svc)', () => {
  let objects: K8sObject[] = [];
  before(() => {
    const docs = parseAllDocuments(helm(['template', 'prod', CHART, ...EVERYTHING]));
    objects = docs.map((d) => d.toJS() as K8sObject | null).filter((o): o is K8sObject => o !== null);
  });
  const find = (kind: string, name: string): K8sObject => {
    const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
    assert.ok(o, `no ${kind} ${name} among ${objects.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
    return o;
  };
  const podOf = (o: K8sObject): PodTemplate => (o.spec as { template: PodTemplate }).template;

  it('passes helm lint, with every part on and with the defaults', () => {
    helm(['lint', '--strict', CHART]);
    helm(['lint', '--strict', CHART, ...EVERYTHING]);
  });

  it('renders objects that validate against the Kubernetes schemas', async () => {
    assert.ok(objects.length >= 15, `${objects.length} objects`);
    for (const o of objects) {
      const models = (await import(`kubernetes-models/${o.apiVersion}`)) as Record<string, new (o: unknown) => { validate(): void }>;
      const Model = models[o.kind];
      assert.ok(Model, `no schema for ${o.apiVersion} ${o.kind}`);
      assert.doesNotThrow(() => new Model(o).validate(), `${o.kind}/${o.metadata.name}`);
    }
  });

  it('gives each part readiness, liveness, resources and a non-root user; the scalable ones a PodDisruptionBudget and a CPU autoscaler', () => {
    for (const part of ['pipeline', 'gateway', 'hub']) {
      const [engine] = podOf(find('Deployment', `prod-svc-${part}`)).spec.containers;
      assert.ok(engine!.readinessProbe && engine!.livenessProbe, `${part}: probes`);
      if (part !== 'hub') assert.equal(engine!.readinessProbe.httpGet?.path, '/ready', `${part}: readiness is /ready`);
      assert.ok(engine!.resources?.requests?.cpu && engine!.resources.limits?.memory, `${part}: resources`);
      assert.equal(engine!.securityContext?.runAsNonRoot, true, `${part}: non-root`);
      find('PodDisruptionBudget', `prod-svc-${part}`);
    }
    for (const part of ['pipeline', 'gateway']) {
      const hpa = find('HorizontalPodAutoscaler', `prod-svc-${part}`).spec as {
        scaleTargetRef: { name: string };
        metrics: Array<{ resource: { name: string } }>;
      };
      assert.equal(hpa.scaleTargetRef.name, `prod-svc-${part}`);
      assert.equal(hpa.metrics[0]!.resource.name, 'cpu');
    }
  });

  it('takes config from ConfigMaps and secrets from Secrets: the gateway reaches its Redis, the hub its PostgreSQL, no secret in a ConfigMap', () => {
    const gateway = find('ConfigMap', 'prod-svc-gateway').data!;
    const conf = JSON.parse(gateway['svc.conf']!) as { secret: string; storage: { host: string; port: number } };
    assert.equal(conf.secret, 'env://SVC_GATEWAY_SECRET');
    find('Service', conf.storage.host);
    assert.ok(find('ConfigMap', 'prod-svc-gateway-apis').data!['engine.json']!.includes('"listen_path"'));
    const [gw] = podOf(find('Deployment', 'prod-svc-gateway')).spec.containers;
    assert.deepEqual(gw!.env?.find((e) => e.name === 'SVC_GATEWAY_SECRET')?.valueFrom?.secretKeyRef, { name: 'svc-gateway', key: 'secret' });
    const [hub] = podOf(find('Deployment', 'prod-svc-hub')).spec.containers;
    assert.deepEqual(hub!.args, ['hub', '-c', '/config/hub.yaml']);
    assert.deepEqual(hub!.env?.find((e) => e.name === 'SVC_HUB_DATABASE_URL')?.valueFrom?.secretKeyRef, { name: 'svc-hub-database', key: 'url' });
    assert.match(find('ConfigMap', 'prod-svc-hub').data!['hub.yaml']!, /url: "\$\{SVC_HUB_DATABASE_URL\}"/);
    find('StatefulSet', 'prod-svc-postgres');
    for (const o of objects.filter((x) => x.kind === 'ConfigMap')) {
      assert.doesNotMatch(JSON.stringify(o.data ?? {}), /password|svc-example-secret/i, `${o.metadata.name} holds no secret`);
    }
    for (const o of objects) {
      for (const c of o.kind === 'Deployment' || o.kind === 'StatefulSet' ? podOf(o).spec.containers : []) {
        for (const e of c.env ?? [])
          assert.ok(e.valueFrom?.secretKeyRef || !/SECRET|PASSWORD|URL/.test(e.name), `${o.metadata.name}: ${e.name} comes from a Secret`);
      }
    }
  });

  it('renders a pipeline that engine lint passes, and a gateway that serves its APIs with the real Redis, laid out as the pods mount them', async () => {
    // /config in the pods is `dir` here (ConfigMaps, svc.conf, API definitions and policies where
    // the projected volume puts them); the Services' names and the pods' ports are this machine's.
    const [service, gatewayPort, redis] = [await freePort(), await freePort(), new URL(serviceAddress('SVC_REDIS_URL'))];
    const local = (text: string): string =>
      text
        .replaceAll('/config/', `${dir}/`)
        .replaceAll('0.0.0.0:4195', `127.0.0.1:${service}`)
        .replaceAll('127.0.0.1:4195', `127.0.0.1:${service}`)
        .replaceAll('"0.0.0.0"', '"127.0.0.1"')
        .replaceAll('"listen_port": 8080', `"listen_port": ${gatewayPort}`)
        .replaceAll('"host": "prod-svc-redis", "port": 6379', `"host": "${redis.hostname}", "port": ${redis.port}, "database": 12`);
    const place: Record<string, string> = {
      'prod-svc-pipeline': '',
      'prod-svc-gateway': '',
      'prod-svc-gateway-apis': 'gateway/apis',
      'prod-svc-gateway-policies': 'gateway/policies',
    };
    for (const [name, sub] of Object.entries(place)) {
      for (const [key, text] of Object.entries(find('ConfigMap', name).data ?? {})) {
        const folder = join(dir, key === 'svc.conf' ? 'gateway' : sub);
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, key), local(text));
      }
    }
    const lint = spawnSync(process.execPath, [ENGINE, 'lint', join(dir, 'pipeline.yaml')], { encoding: 'utf8' });
    assert.equal(lint.status, 0, lint.stdout + lint.stderr);
    assert.match(readFileSync(join(dir, 'gateway/svc.conf'), 'utf8'), new RegExp(`"port": ${redis.port}, "database": 12`), 'svc.conf names the Redis Service');
    const gateway = spawn(process.execPath, [ENGINE, '-c', join(dir, 'gateway.yaml')], {
      env: { ...process.env, SVC_GATEWAY_SECRET: 'from-a-secret' },
      stdio: 'pipe',
    });
    let log = '';
    gateway.stdout.on('data', (d: Buffer) => (log += d.toString()));
    gateway.stderr.on('data', (d: Buffer) => (log += d.toString()));
    try {
      const pong = await waitFor(
        'the gateway to serve /engine/ping',
        async () => {
          if (gateway.exitCode !== null) throw new Error(`the gateway exited: ${log}`);
          const r = await fetch(`http://127.0.0.1:${gatewayPort}/engine/ping`).catch(() => undefined);
          return r?.status === 200 ? r.text() : undefined;
        },
        60_000,
      );
      assert.equal(pong, 'pong');
      const apis = (secret: string) => fetch(`http://127.0.0.1:${gatewayPort}/svc/apis`, { headers: { 'x-svc-authorization': secret } });
      assert.equal((await apis('from-a-secret')).status, 200, 'the management secret came from the environment (a Secret in the pod)');
      assert.equal((await apis('svc-example-secret')).status, 403);
    } finally {
      gateway.kill('SIGTERM');
      await new Promise((r) => (gateway.exitCode !== null ? r(undefined) : gateway.once('exit', r)));
    }
  });
});
