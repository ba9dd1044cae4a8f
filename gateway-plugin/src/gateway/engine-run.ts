/**
 * End-to-end helpers of the gateway's tests: a real `engine` process running `api_gateway` over a
 * real svc.conf and classic API definition files (written from the test's ApiSpec objects), with
 * a plugin module of the test's own whose `test_thread_probe` answers with the process and thread it ran on
 * and the rate limiter's verdict for the request (`req.rateLimit`: limit, remaining, resetAt).
 * The gateway runs in one process unless `opts.input` sets `processes`.
 * Every process is killed when the test file ends.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ApiSpec, RewriteLocation, RewriteMatch, RewriteTrigger } from '../apis/api-spec.js';
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
import { threadId } from 'node:worker_threads';
import { registerProcessor, answerMessage, f } from ${JSON.stringify(join(root, 'engine/dist/index.js'))};
import { GATEWAY_REQUEST } from ${JSON.stringify(join(here, '../kernel/request.js'))};

registerProcessor('test_thread_probe', {
  summary: 'answers with the process and thread it ran on, the request key and the rate limiter verdict (tests)',
  config: f.object({}),
  factory: () => ({
    async process(batch) {
      for (const msg of batch) {
        const req = msg.ctx.get(GATEWAY_REQUEST);
        answerMessage(msg, { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ pid: process.pid, thread: threadId, key: req.session?.keyId ?? null, rateLimit: req.rateLimit ?? null })) });
      }
      return [batch];
    },
  }),
});

// A stage that never finishes for requests with x-test-hold (a stand-in for a stalled identity
// provider); logs "test_hold: N held" at every 64th.
let held = 0;
registerProcessor('test_hold', {
  summary: 'holds requests with x-test-hold forever, passes the others (tests)',
  config: f.object({}),
  factory: () => ({
    async process(batch) {
      if (batch.every((m) => m.ctx.get(GATEWAY_REQUEST).headers['x-test-hold'] === undefined)) return [batch];
      if (++held % 64 === 0) console.log('test_hold: ' + held + ' held');
      return new Promise(() => undefined);
    },
  }),
});
`;

const OPTION_NAMES: Record<RewriteLocation, string> = {
  header: 'header_matches',
  query: 'query_val_matches',
  pathPart: 'path_part_matches',
  sessionMeta: 'session_meta_matches',
  requestContext: 'request_context_matches',
  payload: 'payload_matches',
};

/** A trigger's rules as classic `options`. */
function classicOptions(rules: RewriteTrigger['rules']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [location, list] of Object.entries(rules) as Array<[RewriteLocation, RewriteMatch[]]>) {
    if (location === 'payload') out.payload_matches = { match_rx: list[0]!.matchRx, reverse: list[0]!.reverse };
    else out[OPTION_NAMES[location]] = Object.fromEntries(list.map((m) => [m.key, { match_rx: m.matchRx, reverse: m.reverse }]));
  }
  return out;
}

/** The classic Tyk definition of a test's ApiSpec (the fields these tests set). */
function classicOf(api: ApiSpec): Record<string, unknown> {
  return {
    api_id: api.id,
    name: api.name,
    org_id: api.orgId,
    active: api.active,
    use_keyless: api.keyless,
    enable_context_vars: api.enableContextVars === true,
    use_standard_auth: api.standardAuth,
    proxy: { listen_path: api.listenPath, target_url: api.targetUrl, strip_listen_path: api.stripListenPath },
    global_rate_limit: api.globalRateLimit,
    disable_rate_limit: api.disableRateLimit,
    version_data: {
      not_versioned: true,
      versions: {
        Default: {
          name: 'Default',
          use_extended_paths: api.endpointRateLimits.length > 0 || api.urlRewrites.length > 0,
          extended_paths: {
            rate_limit: api.endpointRateLimits.map((e) => ({ path: e.path, method: e.method, rate: e.rate, per: e.per })),
            url_rewrites: api.urlRewrites.map((r) => ({
              path: r.path,
              method: r.method,
              match_pattern: r.matchPattern,
              rewrite_to: r.rewriteTo,
              triggers: r.triggers.map((t) => ({ on: t.on, options: classicOptions(t.rules), rewrite_to: t.rewriteTo })),
            })),
          },
        },
      },
    },
  };
}

/** Writes svc.conf (Tyk's fields), the API definitions (apps/) and the plugin module into `dir`. */
export function writeGateway(dir: string, config: GatewayConfig, apis: ApiSpec[]): void {
  const { baseDir: _baseDir, ...conf } = config;
  void _baseDir;
  writeFileSync(join(dir, 'svc.conf'), JSON.stringify({ ...conf, app_path: './apps', policies: { policy_source: 'file', policy_path: '' } }));
  writeApis(dir, apis);
  writeFileSync(join(dir, 'plugin.mjs'), PLUGIN);
}

/** Replaces the API definition files a reload reads. */
export function writeApis(dir: string, apis: ApiSpec[]): void {
  const apps = join(dir, 'apps');
  rmSync(apps, { recursive: true, force: true });
  mkdirSync(apps);
  for (const api of apis) writeFileSync(join(apps, `${api.id}.json`), JSON.stringify(classicOf(api)));
}

export interface EngineRun {
  log(): string;
  /** The engine process's id (its memory and threads are in /proc/<pid>). */
  pid: number;
  /** SIGINT, then the exit code (SIGKILL after 20 s). */
  stop(): Promise<number | null>;
}

/** The stream config `runGateway` runs: `api_gateway` on `dir`'s svc.conf, then `rest`. */
/** `input`: more fields of `api_gateway`, in YAML flow style (`write_timeout: 1s`). */
function engineConfig(dir: string, rest: string, httpAddress?: string, input?: string): string {
  const file = join(dir, 'engine.yaml');
  writeFileSync(
    file,
    `http: ${httpAddress ? `{ address: ${httpAddress} }` : '{ enabled: false }'}
plugins: [ ${JSON.stringify(join(dir, 'plugin.mjs'))} ]
input:
  api_gateway: { conf: ${JSON.stringify(join(dir, 'svc.conf'))}${input?.includes('processes:') ? '' : ', processes: 1'}${input ? `, ${input}` : ''} }
${rest}
shutdown_timeout: 10s
`,
  );
  return file;
}

/** With `processes`: the pids of the children that said they serve, in order (a replaced one adds one). */
export function childPids(engine: EngineRun): number[] {
  return engine
    .log()
    .split('\n')
    .filter((l) => /Child process \d+ is serving/.test(l))
    .map((l) => Number(/pid[^\d]+(\d+)/.exec(l)?.[1]));
}

/** `engine lint` of the config `runGateway` would run: its exit code and what it printed. */
export function lintGateway(dir: string, rest: string): { code: number | null; out: string } {
  const r = spawnSync(engineBin, ['lint', engineConfig(dir, rest)], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/**
 * Runs the engine with `api_gateway` on `dir`'s svc.conf as its input (plus `opts.input`, more of
 * its fields in YAML flow style) and `rest` (YAML of `pipeline:` and `output:`) after it; resolves once the gateway answers `/hello` on `port` (or `opts.ready` says so: HTTPS), and
 * rejects with the log as soon as the log matches `failOn`.
 */
export async function runGateway(
  dir: string,
  port: number,
  rest: string,
  opts: { httpAddress?: string; waitMs?: number; failOn?: RegExp; input?: string; ready?: () => Promise<boolean> } = {},
): Promise<EngineRun> {
  const file = engineConfig(dir, rest, opts.httpAddress, opts.input);
  const child = spawn(engineBin, ['-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  // 'close': the process exited and everything it printed has been read.
  const exited = new Promise<number | null>((r) =>
    child.once('close', (code) => {
      running.delete(child);
      r(code);
    }),
  );
  // The engine exits at once on a config it refuses: no need to wait for it to listen.
  const failed = () => opts.failOn?.test(out) === true || child.exitCode !== null;
  await waitFor(
    () =>
      failed() ||
      (opts.ready?.() ??
        call(port, 'GET', '/hello').then(
          (r) => r.status === 200,
          () => false,
        )),
    'the gateway to listen',
    // Start-up on a busy machine (several processes, other test files beside it) can take a while.
    opts.waitMs ?? 60_000,
  )
    .then(() => {
      if (failed()) throw new Error(child.exitCode === null ? 'the gateway did not start' : `the engine exited with code ${child.exitCode}`);
    })
    .catch(async (err: Error) => {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`${err.message}; engine log:\n${out}`);
    });
  return {
    log: () => out,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGINT');
      const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
}
