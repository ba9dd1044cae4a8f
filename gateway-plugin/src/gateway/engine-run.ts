/**
 * End-to-end helpers of the gateway's tests: a real `engine` process with a plugin module of the
 * test's own, where `test_api_gateway` is the `api_gateway` input over a JSON file of hand-made
 * parts (`parts.json` beside svc.conf: `{apis: ApiSpec[]}`, read again on every reload) and
 * `test_thread_probe` answers with the thread it ran on. Every process is killed when the test
 * file ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ApiSpec } from '../apis/api-spec.js';
import type { GatewayConfig } from '../conf/gateway-config.js';
import { call, waitFor } from './test-support.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const engineBin = join(root, 'node_modules/.bin/engine');
const here = fileURLToPath(new URL('.', import.meta.url));
const running = new Set<ChildProcess>();
after(() => {
  for (const c of running) c.kill('SIGKILL');
});

const PLUGIN = `
import { readFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { registerInput, registerProcessor, answerMessage, f } from ${JSON.stringify(join(root, 'engine/dist/index.js'))};
import { ApiGatewayInput, apiGatewaySpec } from ${JSON.stringify(join(here, 'api-gateway-input.js'))};
import { MemorySessionStore } from ${JSON.stringify(join(here, '../sessions/memory-store.js'))};
import { GATEWAY_REQUEST } from ${JSON.stringify(join(here, 'request.js'))};
import { gatewayState } from ${JSON.stringify(join(here, 'state.js'))};

const fileSource = {
  async loadConfig(file) { return { config: JSON.parse(readFileSync(file, 'utf8')), warnings: [] }; },
  async loadApis(config) { return { apis: JSON.parse(readFileSync(config.baseDir + '/parts.json', 'utf8')).apis, errors: [] }; },
  async loadPolicies() { return { policies: [], errors: [] }; },
  async parseApi() { throw new Error('not in these tests'); },
  async createSessions() { return new MemorySessionStore(); },
};

registerInput('test_api_gateway', { summary: 'api_gateway over a JSON file (tests)', config: apiGatewaySpec, factory: (conf, ctx) => new ApiGatewayInput(conf, ctx, fileSource) });

registerProcessor('test_thread_probe', {
  summary: 'answers with the thread it ran on and what the gateway state there says (tests)',
  config: f.object({}),
  factory: () => ({
    async process(batch) {
      for (const msg of batch) {
        const req = msg.ctx.get(GATEWAY_REQUEST);
        const state = gatewayState(req.gateway);
        answerMessage(msg, { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ thread: threadId, version: state.version, seen: req.version, key: req.session?.keyId ?? null })) });
      }
      return [batch];
    },
  }),
});
`;

/** Writes svc.conf (the config as JSON), parts.json and the plugin module into `dir`. */
export function writeGateway(dir: string, config: GatewayConfig, apis: ApiSpec[]): void {
  writeFileSync(join(dir, 'svc.conf'), JSON.stringify({ ...config, baseDir: dir }));
  writeApis(dir, apis);
  writeFileSync(join(dir, 'plugin.mjs'), PLUGIN);
}

/** Replaces the APIs a reload reads. */
export function writeApis(dir: string, apis: ApiSpec[]): void {
  writeFileSync(join(dir, 'parts.json'), JSON.stringify({ apis }));
}

export interface EngineRun {
  log(): string;
  /** SIGINT, then the exit code (SIGKILL after 20 s). */
  stop(): Promise<number | null>;
}

/**
 * Runs the engine with `test_api_gateway` on `dir`'s svc.conf as its input and `rest` (YAML of
 * `pipeline:` and `output:`) after it; resolves once the gateway answers `/hello` on `port`.
 */
export async function runGateway(dir: string, port: number, rest: string, opts: { httpAddress?: string } = {}): Promise<EngineRun> {
  const file = join(dir, 'engine.yaml');
  writeFileSync(
    file,
    `http: ${opts.httpAddress ? `{ address: ${opts.httpAddress} }` : '{ enabled: false }'}
plugins: [ ${JSON.stringify(join(dir, 'plugin.mjs'))} ]
input:
  test_api_gateway: { conf: ${JSON.stringify(join(dir, 'svc.conf'))} }
${rest}
shutdown_timeout: 10s
`,
  );
  const child = spawn(engineBin, ['-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) =>
    child.once('exit', (code) => {
      running.delete(child);
      r(code);
    }),
  );
  await waitFor(
    () =>
      child.exitCode === null &&
      call(port, 'GET', '/hello').then(
        (r) => r.status === 200,
        () => false,
      ),
    'the gateway to listen',
    20_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; engine log:\n${out}`);
  });
  return {
    log: () => out,
    stop: async () => {
      child.kill('SIGINT');
      const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
}
