/**
 * What a user gets from npm: every workspace packed with `npm pack`, the tarballs installed into an
 * empty folder with `npm install` (dependencies from the registry, from npm's cache when it has
 * them), then the README's quick start and configs run from that folder, not from the checkout.
 *
 * - A tarball holds dist, types, README and LICENSE only: no sources, no tests, no test helpers.
 * - `@svc/engine` alone runs stdin → mapping → stdout and the quick start (generate → log →
 *   stdout), on this machine's Node (20) and on the image's (24, which `scripts/services.sh up`
 *   fetches as SVC_NODE_LTS), and a config that needs a package that is not installed names the package.
 * - Every package installed (`svc`): the gateway config serves a keyless API and refuses a
 *   request without a token, as it does from the checkout, started with the Dockerfile's
 *   ENTRYPOINT and CMD (its config path mapped) on the image's Node, and the Dockerfile's HEALTHCHECK command says
 *   healthy while the engine is ready and unhealthy once it is gone. There is no Docker daemon
 *   here: this runs the image's commands on the same tarballs the image installs, and lints the
 *   Dockerfile (dockerfile-utils, the linter of VS Code's Docker extension).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, serviceAddress, waitFor } from '@svc/engine/testing';
import { validate } from 'dockerfile-utils';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WORKSPACES = ['@svc/engine', '@svc/plugins', '@svc/gateway-plugin', '@svc/governance-plugin', 'svc'];

/** The environment without the npm_* variables of an enclosing `npm test`, which would steer npm here. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
}

function run(cmd: string, args: string[], cwd: string, input?: string, env = cleanEnv()): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, input, encoding: 'utf8', env, timeout: 180_000, maxBuffer: 64 << 20 });
}

/**
 * The environment of the image's Node: the Dockerfile's final `FROM node:<major>...` must be the
 * Node that services.sh fetched (SVC_NODE_LTS), first on PATH so that `engine`'s `#!/usr/bin/env
 * node` and the HEALTHCHECK's `node` run on it.
 */
function imageNodeEnv(): { env: NodeJS.ProcessEnv; node: string; major: string } {
  const node = serviceAddress('SVC_NODE_LTS');
  assert.ok(node !== undefined && existsSync(node), `no Node for the image (SVC_NODE_LTS=${node}): scripts/services.sh up fetches it`);
  const major = /^FROM node:(\d+)/m.exec(
    finalStage(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))
      .map((i) => `${i.keyword} ${i.args}`)
      .join('\n'),
  )?.[1];
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  assert.equal(version.split('.')[0], `v${major}`, `the image is on Node ${major}, SVC_NODE_LTS is ${version}`);
  return { env: { ...cleanEnv(), PATH: `${dirname(node)}:${process.env.PATH ?? ''}` }, node, major: major! };
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
      if (p.name !== 'svc') assert.ok(files.includes('dist/index.d.ts'), `${p.name} packs no types`);
    }
    const engineDir = join(work, 'unpacked');
    mkdirSync(engineDir);
    run('tar', ['-xzf', join(work, packed.find((p) => p.name === '@svc/engine')!.filename), '-C', engineDir], work);
    assert.equal(readFileSync(join(engineDir, 'package/LICENSE'), 'utf8'), license);
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
    // This machine's Node, then the image's.
    for (const env of [cleanEnv(), imageNodeEnv().env]) {
      const qs = engine(dir, ['-c', 'quickstart.yaml'], undefined, env);
      assert.equal(qs.status, 0, qs.stderr);
      assert.equal(qs.stdout.trim().split('\n').length, 10);
      assert.match(qs.stdout, /"greeting":"hello from svc"/);
    }

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

  it("svc (every package) runs the gateway config on the image's Node: a keyless API answers, a protected one wants a token", async () => {
    const dir = project('everything', ['svc', '@svc/engine', '@svc/plugins', '@svc/gateway-plugin', '@svc/governance-plugin']);
    const [service, gatewayPort] = [await freePort(), await freePort()];
    cpSync(join(ROOT, 'configs/gateway'), join(dir, 'configs/gateway'), { recursive: true });
    const swap = (file: string, from: string, to: string): void => writeFileSync(file, readFileSync(file, 'utf8').replaceAll(from, to));
    writeFileSync(join(dir, 'gateway.yaml'), readFileSync(join(ROOT, 'configs/gateway.yaml'), 'utf8').replaceAll('127.0.0.1:4195', `127.0.0.1:${service}`));
    for (const api of ['engine.json', 'secure.json']) swap(join(dir, 'configs/gateway/apis', api), '127.0.0.1:4195', `127.0.0.1:${service}`);
    swap(join(dir, 'configs/gateway/svc.conf'), '"listen_port": 8080', `"listen_port": ${gatewayPort}`);

    // The image's command: ENTRYPOINT ["engine"] and CMD, with its config path mapped to this folder.
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const stage = finalStage(dockerfile);
    const [entry, ...entryArgs] = execForm(stage, 'ENTRYPOINT');
    assert.equal(entry, 'engine');
    const args = [...entryArgs, ...execForm(stage, 'CMD')].map((a) => (a === '/config/pipeline.yaml' ? 'gateway.yaml' : a));
    const health = execForm(stage, 'HEALTHCHECK');
    // The image's Node runs both, as in the container.
    const image = imageNodeEnv();
    const healthy = (): number | null =>
      spawnSync(health[0]!, health.slice(1), {
        env: { ...image.env, SVC_READY_URL: `http://127.0.0.1:${service}/ready` },
        timeout: 10_000,
      }).status;

    const child = spawn(join(dir, 'node_modules/.bin', entry), args, { cwd: dir, env: image.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    for (const s of [child.stdout, child.stderr]) s.on('data', (c: Buffer) => (log += c.toString()));
    try {
      const pong = await waitFor(
        'the gateway to serve /engine/ping',
        async () => {
          if (child.exitCode !== null) throw new Error(`engine exited ${child.exitCode}: ${log}`);
          const res = await fetch(`http://127.0.0.1:${gatewayPort}/engine/ping`);
          return res.status === 200 ? res.text() : undefined;
        },
        30_000,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\nengine log:\n${log}`);
      });
      assert.equal(pong, 'pong');
      assert.equal(readlinkSync(`/proc/${child.pid}/exe`), image.node, `the engine runs on the image's Node ${image.major}`);
      const secure = await fetch(`http://127.0.0.1:${gatewayPort}/secure/ping`);
      assert.equal(secure.status, 400);
      assert.match(await secure.text(), /Authorization field missing/);
      assert.equal(healthy(), 0, 'HEALTHCHECK says healthy while /ready answers 200');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
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
