/**
 * What a user gets from npm: every workspace packed with `npm pack`, the tarballs installed into an
 * empty folder with `npm install` (dependencies from the registry, from npm's cache when it has
 * them), then the README's quick start and configs run from that folder, not from the checkout.
 *
 * - A tarball holds dist, types, README and LICENSE only: no sources, no tests, no test helpers.
 * - Every package is published under a name in the `@svc` scope (the unscoped `svc` and `engine`
 *   are other projects' on the registry) with the metadata its npm page shows, and `npm publish
 *   --dry-run` of each passes without the network (npm 11 asks the registry for the version
 *   unless offline: `--offline`, and a registry on a closed loopback port).
 * - `@svc/engine` alone runs stdin → mapping → stdout and the quick start (generate → log →
 *   stdout), on this machine's Node (20), on Node 22 (SVC_NODE_22) and on the image's (24,
 *   SVC_NODE_LTS; `scripts/services.sh up` fetches both), also as `npx @svc/engine`, and a config
 *   that needs a package that is not installed names the package.
 * - Every package installed (`@svc/all`): each loads and registers its components on Node 22;
 *   the gateway config serves a keyless API and refuses a request without a token, as it does
 *   from the checkout, started with the Dockerfile's ENTRYPOINT and CMD (its config path mapped)
 *   on the image's Node, and the Dockerfile's HEALTHCHECK command says healthy while the engine is
 *   ready and unhealthy once it is gone; a hub (`engine hub`, its embedded database) serves its
 *   page and, with an agent (`engine agent`) on the gateway, holds the gateway's APIs after a
 *   ReSync: the README's governance walkthrough. There is no Docker daemon here: this runs the
 *   image's commands on the same tarballs the image installs, and lints the Dockerfile
 *   (dockerfile-utils, the linter of VS Code's Docker extension).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, serviceAddress, waitFor } from '@svc/engine/testing';
import { validate } from 'dockerfile-utils';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WORKSPACES = ['@svc/engine', '@svc/plugins', '@svc/gateway-plugin', '@svc/governance-plugin', '@svc/all'];

/** The environment without the npm_* variables of an enclosing `npm test`, which would steer npm here. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
}

function run(cmd: string, args: string[], cwd: string, input?: string, env = cleanEnv()): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, input, encoding: 'utf8', env, timeout: 180_000, maxBuffer: 64 << 20 });
}

/**
 * The environment of a Node that services.sh fetched (by its variable), checked to be that major
 * and first on PATH so that `engine`'s `#!/usr/bin/env node` and the HEALTHCHECK's `node` run on it.
 */
function nodeEnv(variable: string, major: string): { env: NodeJS.ProcessEnv; node: string } {
  const node = serviceAddress(variable);
  assert.ok(node !== undefined && existsSync(node), `no Node ${major} (${variable}=${node}): scripts/services.sh up fetches it`);
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  assert.equal(version.split('.')[0], `v${major}`, `${variable} is ${version}, not Node ${major}`);
  return { env: { ...cleanEnv(), PATH: `${dirname(node)}:${process.env.PATH ?? ''}` }, node };
}

/** The environment of the image's Node: the Dockerfile's final `FROM node:<major>...`, SVC_NODE_LTS. */
function imageNodeEnv(): { env: NodeJS.ProcessEnv; node: string; major: string } {
  const major = /^FROM node:(\d+)/m.exec(
    finalStage(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))
      .map((i) => `${i.keyword} ${i.args}`)
      .join('\n'),
  )?.[1];
  assert.ok(major !== undefined, "the Dockerfile's final stage is not FROM node:<major>");
  return { ...nodeEnv('SVC_NODE_LTS', major), major };
}

/** A process of the test's, its output collected; `until` waits for a line of it. */
function start(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; log: () => string; until: (re: RegExp) => Promise<RegExpExecArray>; stop: () => Promise<void> } {
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  for (const s of [child.stdout, child.stderr]) s.on('data', (c: Buffer) => (log += c.toString()));
  const until = (re: RegExp): Promise<RegExpExecArray> =>
    waitFor(
      `${re} from ${cmd} ${args.join(' ')}`,
      async () => {
        const m = re.exec(log);
        if (m === null && child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${log}`);
        return m ?? undefined;
      },
      60_000,
    );
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r)));
  };
  return { child, log: () => log, until, stop };
}

interface Packed {
  name: string;
  filename: string;
  files: Array<{ path: string }>;
}

/** The final stage of the Dockerfile: each instruction's keyword and text (continuations joined). */
function finalStage(text: string): Array<{ keyword: string; args: string }> {
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n');
  const all = lines.filter((l) => /^[A-Z]+\s/.test(l)).map((l) => ({ keyword: l.split(/\s/)[0]!, args: l.slice(l.indexOf(' ') + 1).trim() }));
  return all.slice(all.findLastIndex((i) => i.keyword === 'FROM'));
}

/** The exec-form (JSON) arguments of the final stage's last `keyword` instruction. */
function execForm(stage: Array<{ keyword: string; args: string }>, keyword: string): string[] {
  const args = stage.findLast((i) => i.keyword === keyword)?.args;
  assert.ok(args !== undefined, `the Dockerfile's final stage has no ${keyword}`);
  const json = keyword === 'HEALTHCHECK' ? /\bCMD\s+(\[.*\])$/.exec(args)?.[1] : args;
  return JSON.parse(json ?? 'null') as string[];
}

let work: string;
let packed: Packed[];

/** A project folder with only the named tarballs installed. */
function project(name: string, packages: string[]): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true }));
  const tarballs = packages.map((p) => join(work, packed.find((x) => x.name === p)!.filename));
  const r = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], dir);
  assert.equal(r.status, 0, `npm install in ${dir} failed:\n${r.stderr}`);
  return dir;
}

function engine(dir: string, args: string[], input?: string, env?: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  return run(join(dir, 'node_modules/.bin/engine'), args, dir, input, env);
}

describe('installed from the packed tarballs', { timeout: 300_000 }, () => {
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'svc-install-'));
    const r = run('npm', ['pack', '--workspaces', '--json', '--pack-destination', work], ROOT);
    assert.equal(r.status, 0, `npm pack failed:\n${r.stderr}`);
    packed = JSON.parse(r.stdout) as Packed[];
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('every workspace packs dist, types, README and LICENSE only', () => {
    assert.deepEqual(packed.map((p) => p.name).sort(), [...WORKSPACES].sort());
    const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    for (const p of packed) {
      const files = p.files.map((f) => f.path);
      const stray = files.filter((f) => !/^(dist\/|bin\/|proto\/|web\/|package\.json$|README\.md$|LICENSE$)/.test(f));
      assert.deepEqual(stray, [], `${p.name} packs files outside dist, bin, README and LICENSE`);
      const tests = files.filter((f) => /\.test\.|test-support|test-context|test-helpers|test-fixtures|-double\.|\.map$|tsbuildinfo/.test(f));
      assert.deepEqual(tests, [], `${p.name} packs tests or test helpers`);
      assert.ok(files.includes('LICENSE') && files.includes('README.md'), `${p.name} packs no LICENSE or README.md`);
      if (p.name !== '@svc/all') assert.ok(files.includes('dist/index.d.ts'), `${p.name} packs no types`);
    }
    const engineDir = join(work, 'unpacked');
    mkdirSync(engineDir);
    run('tar', ['-xzf', join(work, packed.find((p) => p.name === '@svc/engine')!.filename), '-C', engineDir], work);
    assert.equal(readFileSync(join(engineDir, 'package/LICENSE'), 'utf8'), license);
  });

  it('every package has an @svc name, the metadata of its npm page, and passes npm publish --dry-run offline', async () => {
    const closed = await freePort(); // nothing listens there: a request would fail, not reach the registry
    const dirs = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
    for (const dir of dirs) {
      const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Record<string, unknown> & { name: string; version: string };
      assert.match(pkg.name, /^@svc\/[a-z-]+$/, `${dir}: ${pkg.name} is not in the @svc scope`);
      for (const field of ['description', 'keywords', 'homepage', 'bugs', 'repository', 'license', 'engines', 'files'])
        assert.ok(pkg[field] !== undefined, `${pkg.name} has no ${field}`);
      assert.equal((pkg.repository as { directory?: string }).directory, dir);
      assert.match((pkg.engines as { node: string }).node, /^>=20\b/);
      assert.deepEqual(pkg.publishConfig, { access: 'public' }, `${pkg.name}: a scoped package publishes as restricted unless told`);
      const r = run('npm', ['publish', '--dry-run', '--offline', '--workspace', dir, '--registry', `http://127.0.0.1:${closed}/`, '--loglevel', 'http'], ROOT);
      assert.equal(r.status, 0, `npm publish --dry-run of ${pkg.name} failed:\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /npm http fetch/, `npm publish --dry-run of ${pkg.name} made a request`);
      assert.ok(r.stdout.includes(`+ ${pkg.name}@${pkg.version}`), r.stdout + r.stderr);
    }
  });

  it('@svc/engine alone runs stdin → mapping → stdout and the quick start, and names a missing package', async () => {
    const dir = project('engine-alone', ['@svc/engine']);
    const port = await freePort();
    writeFileSync(
      join(dir, 'upper.yaml'),
      `http:\n  address: 127.0.0.1:${port}\ninput:\n  stdin: {}\npipeline:\n  processors:\n    - mapping: root = content().uppercase()\noutput:\n  stdout: {}\nlogger:\n  level: WARN\n`,
    );
    const upper = engine(dir, ['-c', 'upper.yaml'], 'hello\nworld\n');
    assert.equal(upper.status, 0, upper.stderr);
    assert.equal(upper.stdout, 'HELLO\nWORLD\n');

    const quickstart = readFileSync(join(ROOT, 'configs/quickstart.yaml'), 'utf8').replaceAll('127.0.0.1:4195', `127.0.0.1:${port}`);
    writeFileSync(join(dir, 'quickstart.yaml'), quickstart);
    // This machine's Node (20), Node 22, then the image's (24).
    for (const env of [cleanEnv(), nodeEnv('SVC_NODE_22', '22').env, imageNodeEnv().env]) {
      const qs = engine(dir, ['-c', 'quickstart.yaml'], undefined, env);
      assert.equal(qs.status, 0, qs.stderr);
      assert.equal(qs.stdout.trim().split('\n').length, 10);
      assert.match(qs.stdout, /"greeting":"hello from svc"/);
    }
    // What the README says to type: npx runs the scoped package's `engine` command (offline: the installed one).
    const npx = run('npx', ['--offline', '@svc/engine', '-c', 'quickstart.yaml'], dir);
    assert.equal(npx.status, 0, npx.stderr);
    assert.equal(npx.stdout.trim().split('\n').length, 10);

    writeFileSync(
      join(dir, 'kafka.yaml'),
      'input:\n  kafka:\n    addresses: [127.0.0.1:9092]\n    topics: [t]\n    consumer_group: g\noutput:\n  stdout: {}\n',
    );
    const kafka = engine(dir, ['lint', 'kafka.yaml']);
    assert.notEqual(kafka.status, 0);
    assert.match(kafka.stderr, /kafka\.yaml:2:3 the input "kafka" at root\.input comes with @svc\/plugins, which is not installed: install @svc\/plugins/);

    cpSync(join(ROOT, 'configs/gateway.yaml'), join(dir, 'gateway.yaml'));
    const gateway = engine(dir, ['lint', 'gateway.yaml']);
    assert.notEqual(gateway.status, 0);
    assert.match(
      gateway.stderr,
      /the input "api_gateway" at root\.input comes with @svc\/gateway-plugin, which is not installed: install @svc\/gateway-plugin/,
    );
  });

  it("@svc/all loads on Node 22, runs the gateway config on the image's Node, and a hub with an agent holds the gateway's APIs", async () => {
    const dir = project('everything', WORKSPACES);
    // Every package loads on Node 22 too: the engine imports each installed package, which registers its components.
    const listed = engine(dir, ['list', '--format', 'json'], undefined, nodeEnv('SVC_NODE_22', '22').env);
    assert.equal(listed.status, 0, listed.stderr);
    const origins = new Set((JSON.parse(listed.stdout) as Array<{ package: string }>).map((c) => c.package));
    assert.deepEqual([...origins].sort(), ['@svc/engine', '@svc/gateway-plugin', '@svc/governance-plugin', '@svc/plugins']);
    const [service, gatewayPort, hubHttp, hubGrpc, probe] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    cpSync(join(ROOT, 'configs/gateway'), join(dir, 'configs/gateway'), { recursive: true });
    cpSync(join(ROOT, 'configs/governance'), join(dir, 'configs/governance'), { recursive: true });
    const swap = (file: string, ...pairs: Array<[string, string]>): void =>
      writeFileSync(
        file,
        pairs.reduce((text, [from, to]) => text.replaceAll(from, to), readFileSync(file, 'utf8')),
      );
    writeFileSync(join(dir, 'gateway.yaml'), readFileSync(join(ROOT, 'configs/gateway.yaml'), 'utf8').replaceAll('127.0.0.1:4195', `127.0.0.1:${service}`));
    for (const api of ['engine.json', 'secure.json']) swap(join(dir, 'configs/gateway/apis', api), ['127.0.0.1:4195', `127.0.0.1:${service}`]);
    swap(join(dir, 'configs/gateway/svc.conf'), ['"listen_port": 8080', `"listen_port": ${gatewayPort}`]);
    swap(join(dir, 'configs/governance/hub.yaml'), ['127.0.0.1:8181', `127.0.0.1:${hubHttp}`], ['127.0.0.1:50051', `127.0.0.1:${hubGrpc}`]);
    swap(
      join(dir, 'configs/governance/agent-config.yaml'),
      ['127.0.0.1:50051', `127.0.0.1:${hubGrpc}`],
      ['127.0.0.1:8080', `127.0.0.1:${gatewayPort}`],
      ['port: 5959', `port: ${probe}`],
    );

    // The image's command: ENTRYPOINT ["engine"] and CMD, with its config path mapped to this folder.
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const stage = finalStage(dockerfile);
    const [entry, ...entryArgs] = execForm(stage, 'ENTRYPOINT');
    assert.equal(entry, 'engine');
    const args = [...entryArgs, ...execForm(stage, 'CMD')].map((a) => (a === '/config/pipeline.yaml' ? 'gateway.yaml' : a));
    const health = execForm(stage, 'HEALTHCHECK');
    // The image's Node runs every process, as in the container.
    const image = imageNodeEnv();
    const healthy = (): number | null =>
      spawnSync(health[0]!, health.slice(1), {
        env: { ...image.env, SVC_READY_URL: `http://127.0.0.1:${service}/ready` },
        timeout: 10_000,
      }).status;
    const bin = join(dir, 'node_modules/.bin', entry!);

    const gateway = start(bin, args, dir, image.env);
    const started: Array<ReturnType<typeof start>> = [gateway];
    try {
      const pong = await waitFor(
        'the gateway to serve /engine/ping',
        async () => {
          if (gateway.child.exitCode !== null) throw new Error(`engine exited ${gateway.child.exitCode}: ${gateway.log()}`);
          const res = await fetch(`http://127.0.0.1:${gatewayPort}/engine/ping`);
          return res.status === 200 ? res.text() : undefined;
        },
        30_000,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\nengine log:\n${gateway.log()}`);
      });
      assert.equal(pong, 'pong');
      assert.equal(readlinkSync(`/proc/${gateway.child.pid}/exe`), image.node, `the engine runs on the image's Node ${image.major}`);
      const secure = await fetch(`http://127.0.0.1:${gatewayPort}/secure/ping`);
      assert.equal(secure.status, 400);
      assert.match(await secure.text(), /Authorization field missing/);
      assert.equal(healthy(), 0, 'HEALTHCHECK says healthy while /ready answers 200');

      // The README's governance walkthrough, over REST.
      const hub = start(bin, ['hub', '-c', 'configs/governance/hub.yaml'], dir, image.env);
      started.push(hub);
      const oneTime = (await hub.until(/admin password \(shown once; change it at first login\): (\S+)/))[1]!;
      await hub.until(/hub listening/);
      const base = `http://127.0.0.1:${hubHttp}`;
      const page = await fetch(`${base}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<html/i);
      const call = async <T>(
        method: string,
        path: string,
        body?: unknown,
        headers: Record<string, string> = {},
      ): Promise<{ status: number; body: T; cookie: string }> => {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as T, cookie: String(res.headers.get('set-cookie')).split(';')[0]! };
      };
      const { status: loggedIn, cookie } = await call('POST', '/api/login/', { username: 'admin', password: oneTime });
      assert.equal(loggedIn, 200);
      const changed = await call('POST', '/api/users/me/password/', { current_password: oneTime, new_password: 'a-long-new-password-1' }, { cookie });
      assert.equal(changed.status, 200);
      const key = { 'x-api-key': (await call<{ key: string }>('POST', '/api/users/me/keys/', { name: 'test' }, { cookie })).body.key };
      const agentId = (await call<{ id: string }>('POST', '/api/agents/', { name: 'gateway-agent' }, key)).body.id;
      const token = (await call<{ token: string }>('POST', '/api/auth/token/', { agent_id: agentId }, key)).body.token;
      const license = (await call<{ license: string }>('POST', '/api/licenses/', { sub: 'my-company', days: 1 }, key)).body.license;

      const agent = start(bin, ['agent', '-c', 'configs/governance/agent-config.yaml'], dir, {
        ...image.env,
        AGENT_TOKEN: token,
        SVC_AGENT_LICENSEKEY: license,
      });
      started.push(agent);
      await agent.until(/waiting for sync requests/);
      const sync = await call<{ id: string; agents: number }>('POST', '/api/sync/', undefined, key);
      assert.equal(sync.body.agents, 1);
      await waitFor('the agent to complete the sync', async () => {
        const states = Object.values(
          (await call<{ agents: Record<string, { state: string }> }>('GET', `/api/sync/${sync.body.id}/`, undefined, key)).body.agents,
        );
        return states.length === 1 && states[0]!.state === 'complete' ? true : undefined;
      });
      const apis = (await call<Array<{ api_id: string; agent_id: string }>>('GET', '/api/apis/?limit=100', undefined, key)).body;
      assert.deepEqual(apis.map((a) => `${a.agent_id === agentId ? 'gateway-agent' : a.agent_id}:${a.api_id}`).sort(), [
        'gateway-agent:engine',
        'gateway-agent:policy:default',
        'gateway-agent:secure',
      ]);
    } finally {
      for (const p of started.reverse()) await p.stop();
    }
    assert.equal(healthy(), 1, 'HEALTHCHECK says unhealthy once the engine is gone');
  });

  it('the Dockerfile lints clean and runs as a non-root user with engine as its entrypoint', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    assert.deepEqual(validate(dockerfile), []);
    const stage = finalStage(dockerfile);
    const user = stage.findLast((i) => i.keyword === 'USER')?.args;
    assert.ok(user !== undefined && !/^(root|0)(:|$)/.test(user), `the final stage runs as ${user ?? 'root'}`);
    assert.deepEqual(execForm(stage, 'ENTRYPOINT'), ['engine']);
    assert.match(execForm(stage, 'HEALTHCHECK').join(' '), /\/ready\b/);
  });
});
