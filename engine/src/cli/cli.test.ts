import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const ENGINE = fileURLToPath(new URL('./main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function engine(args: string[], input?: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [ENGINE, ...args], { input, encoding: 'utf8', timeout: 60_000, cwd: dir });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Polls `cond` until true; fails if the child exits first or 20 s pass. */
function until(cond: () => boolean, child: ReturnType<typeof spawn>): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (cond()) {
        clearInterval(poll);
        resolve();
      } else if (child.exitCode !== null || Date.now() - started > 20_000) {
        clearInterval(poll);
        reject(new Error(`gave up waiting (exit code ${child.exitCode})`));
      }
    }, 10);
  });
}

/** The markdown files under a folder of the checkout, as paths relative to it. */
function markdownUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(folder, f))
    .sort();
}

/** Removes the common indentation of a block (README examples inside list items are indented). */
function dedent(text: string): string {
  const lines = text.split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

const QUIET = 'http: { enabled: false }\nlogger: { level: WARN }\n';

describe('engine CLI', () => {
  it('--help explains the commands', () => {
    const r = engine(['--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /engine -c pipeline\.yaml/);
    assert.match(r.stdout, /engine lint FILE/);
  });

  it('runs generate → stdout and exits 0 once a finite input is delivered', () => {
    const cfg = file('gen.yaml', `${QUIET}input:\n  generate: { mapping: 'root = {"n":1}', interval: '', count: 5, batch_size: 2 }\noutput:\n  stdout: {}\n`);
    const r = engine(['-c', cfg]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{"n":1}\n'.repeat(5));
  });

  it('pipes stdin to stdout byte for byte (also as `engine run -c`)', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i} ${'z'.repeat(i % 50)}`).join('\n') + '\n';
    const cfg = file('pipe.yaml', `${QUIET}input: { stdin: {} }\noutput: { stdout: {} }\n`);
    const r = engine(['run', '-c', cfg], text);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, text);
  });

  it('refuses to run a config with lint errors and lists every one with file:line:col', () => {
    const cfg = file('bad.yaml', `${QUIET}input:\n  generate:\n    mapping: 'root = 1'\n    cuont: 3\noutput:\n  stdout:\n    codec: 7\n  frobnicate: {}\n`);
    const r = engine(['-c', cfg]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /was not run/);
    assert.match(r.stderr, new RegExp(`${cfg}:6:5 field cuont not expected`));
    assert.match(r.stderr, /names two output types \(stdout and frobnicate\)/);
    assert.equal(r.stdout, '');
  });

  it('lint: exit 0 for good files, 1 with every problem for bad ones', () => {
    const good = file('good.yaml', `input:\n  stdin: {}\noutput:\n  drop: {}\n`);
    assert.equal(engine(['lint', good]).code, 0);
    const bad = file('bad2.yaml', `input:\n  stdin: { codec: lines }\n  label: NotOk\noutput:\n  drop: {}\npipeline:\n  threads: many\n`);
    const r = engine(['lint', good, bad]);
    assert.equal(r.code, 1);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 2, r.stderr);
    assert.match(lines[0]!, /bad2\.yaml:3:10 label "NotOk"/);
    assert.match(lines[1]!, /bad2\.yaml:7:12 expected an integer at root\.pipeline\.threads/);
  });

  it('lint: a malformed YAML file and a missing file are clear errors', () => {
    const broken = file('broken.yaml', 'input:\n  stdin: {codec: lines\n');
    const r = engine(['lint', broken, join(dir, 'nope.yaml')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /broken\.yaml:\d+:\d+ YAML syntax error/);
    assert.match(r.stderr, /nope\.yaml:0:0 cannot read config: no such file/);
    // One syntax error is one line, as Benthos prints it: no cascade, no field checks of a broken document.
    const cascade = file('cascade.yaml', 'input:\n  stdin: {}\n  bad: [\noutput:\n  stdout: {}\n  x: "\n');
    const one = engine(['lint', cascade]);
    assert.equal(one.code, 1);
    assert.deepEqual(one.stderr.trim().split('\n').length, 1, one.stderr);
    assert.match(one.stderr, /cascade\.yaml:4:1 YAML syntax error/);
  });

  it("lint takes Benthos' forms: DIR/... (every .yaml and .yml under it), a glob; a folder alone is a clear error", () => {
    const tree = join(dir, 'tree');
    mkdirSync(join(tree, 'sub'), { recursive: true });
    writeFileSync(join(tree, 'ok.yaml'), `${QUIET}input: { stdin: {} }\noutput: { stdout: {} }\n`);
    writeFileSync(join(tree, 'sub', 'bad.yml'), `${QUIET}input: { stdin: { bogus: 1 } }\noutput: { stdout: {} }\n`);
    writeFileSync(join(tree, 'sub', 'notes.txt'), 'not: yaml: [\n');
    const all = engine(['lint', 'tree/...']);
    assert.equal(all.code, 1);
    assert.deepEqual(all.stderr.trim().split('\n'), [`tree/sub/bad.yml:${QUIET.split('\n').length}:19 field bogus not expected at root.input.stdin`]);
    assert.equal(engine(['lint', 'tree/*.yaml']).code, 0);
    const folder = engine(['lint', 'tree']);
    assert.equal(folder.code, 1);
    assert.match(folder.stderr, /^tree:0:0 is a directory: name its files, or tree\/\.\.\. to lint every \.yaml and \.yml file under it/);
  });

  it('reports a missing environment variable without a default', () => {
    const cfg = file('env.yaml', `${QUIET}input:\n  file: { paths: [ "\${DATA_FILE}" ] }\noutput: { drop: {} }\n`);
    const r = engine(['-c', cfg]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /env\.yaml:4:21 environment variable DATA_FILE is not set/);
  });

  it('list: text, json and jsonschema', () => {
    const text = engine(['list']);
    assert.equal(text.code, 0);
    for (const name of ['generate', 'stdin', 'file', 'stdout', 'drop', 'reject', 'broker', 'noop', 'sleep', 'log', 'rate_limit', 'local']) {
      assert.match(text.stdout, new RegExp(`- ${name} `));
    }
    const json = JSON.parse(engine(['list', '--format', 'json']).stdout) as Array<{
      kind: string;
      name: string;
      config: { properties?: Record<string, unknown> };
    }>;
    const gen = json.find((c) => c.kind === 'input' && c.name === 'generate')!;
    assert.deepEqual(Object.keys(gen.config.properties!).sort(), ['auto_replay_nacks', 'batch_size', 'count', 'interval', 'mapping']);
    const schema = JSON.parse(engine(['list', '--format', 'jsonschema']).stdout) as {
      definitions: Record<string, unknown>;
      properties: Record<string, unknown>;
    };
    assert.ok(schema.definitions.input && schema.definitions.processor);
    assert.ok(schema.properties.pipeline);
  });

  it("list -c shows the components of the config's plugins, with the module that brings them", () => {
    const cfg = join(ROOT, 'configs', 'custom-plugin.yaml'); // plugins: [../examples/custom-plugin/reverse.ts]
    const text = engine(['list', '-c', cfg]);
    assert.equal(text.code, 0, text.stderr);
    const line = text.stdout.split('\n').find((l) => l.startsWith('  - reverse '));
    assert.ok(line, 'the plugin processor is listed');
    assert.match(line, /\(plugin .*examples\/custom-plugin\/reverse\.ts\)$/);
    assert.doesNotMatch(engine(['list']).stdout, /^ {2}- reverse /m, 'without -c the plugin is not loaded');
    const json = JSON.parse(engine(['list', '-c', cfg, '--format', 'json']).stdout) as Array<{ kind: string; name: string; package: string }>;
    const reverse = json.find((c) => c.kind === 'processor' && c.name === 'reverse');
    assert.equal(reverse?.package, join(ROOT, 'examples', 'custom-plugin', 'reverse.ts'));
    assert.equal(json.find((c) => c.kind === 'processor' && c.name === 'mapping')?.package, '@svc/engine');
    const schema = engine(['list', '-c', cfg, '--format', 'jsonschema']).stdout;
    assert.match(schema, /"reverse"/);
  });

  it('echo prints the normalised config with defaults', () => {
    const cfg = file('echo.yaml', 'input:\n  generate: { mapping: "root = 1" }\noutput:\n  drop: {}\n');
    const r = engine(['echo', '-c', cfg]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /interval: 1s/);
    assert.match(r.stdout, /threads: -1/);
    assert.match(r.stdout, /shutdown_timeout: 20s/);
  });

  it('echo scrubs secret fields', () => {
    const cfg = file(
      'secret.yaml',
      'input:\n  stdin: {}\noutput:\n  http_client:\n    url: http://127.0.0.1:1/x\n    basic_auth: { enabled: true, username: me, password: hunter2 }\n',
    );
    const r = engine(['echo', '-c', cfg]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /hunter2/);
    assert.match(r.stdout, /password: "?!!!SECRET_SCRUBBED!!!"?/);
    assert.match(r.stdout, /username: me/);
  });

  it('-s overrides a field and -r adds resources', () => {
    const res = file('res.yaml', 'rate_limit_resources:\n  - label: lim\n    local: { count: 1000, interval: 1s }\n');
    const cfg = file(
      'set.yaml',
      `${QUIET}input:\n  generate: { mapping: 'root = "a"', interval: '', count: 1 }\npipeline:\n  processors: [ { rate_limit: { resource: lim } } ]\noutput: { stdout: {} }\n`,
    );
    const r = engine(['-c', cfg, '-r', res, '-s', 'input.generate.count=3']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'a\na\na\n');
  });

  it('a rate_limit naming an unknown resource is a clear error', () => {
    const cfg = file(
      'nolim.yaml',
      `${QUIET}input:\n  generate: { mapping: 'root = "a"', count: 1 }\npipeline:\n  threads: 1\n  processors: [ { rate_limit: { resource: nope } } ]\noutput: { drop: {} }\n`,
    );
    const r = engine(['-c', cfg]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Cannot start the stream: rate limit resource 'nope' was not found: add it under rate_limit_resources/);
  });

  it('a plugin module that does not exist or throws is a clear error', () => {
    const cfg = file('p.yaml', `${QUIET}input: { stdin: {} }\noutput: { drop: {} }\n`);
    const missing = engine(['-c', cfg, '--plugin', './nowhere.js']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot load plugin ".*nowhere\.js": module not found/);
    const thrower = file('throws.mjs', 'throw new Error("plugin init failed");\n');
    const r = engine(['-c', cfg, '--plugin', thrower]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot load plugin ".*throws\.mjs": it threw while loading: plugin init failed/);
  });

  it('runs the TypeScript example plugin on two worker threads', () => {
    const r = engine(['-c', join(ROOT, 'configs', 'custom-plugin.yaml')], 'hello wonderful world\nab cd\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'olleh lufrednow dlrow\nab cd\n');
  });

  it('SIGTERM stops reading, drains and exits 0', async () => {
    const cfg = file(
      'sig.yaml',
      `http: { enabled: false }\nlogger: { level: INFO }\ninput:\n  generate: { mapping: 'root = "tick"', interval: 10ms }\noutput: { stdout: {} }\n`,
    );
    const child = spawn(process.execPath, [ENGINE, '-c', cfg], { cwd: dir });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    await until(() => out.includes('tick\ntick\n'), child);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    assert.equal(code, 0, err);
    assert.match(err, /Received SIGTERM: shutting down/);
    assert.ok(/^(tick\n)+$/.test(out), 'only whole messages were written');
  });

  it('a second signal forces exit while draining', async () => {
    const cfg = file(
      'force.yaml',
      `http: { enabled: false }\nlogger: { level: INFO }\ninput:\n  generate: { mapping: 'root = "slow"', interval: 10ms }\npipeline:\n  threads: 1\n  processors: [ { sleep: { duration: 30s } } ]\noutput: { stdout: {} }\n`,
    );
    const child = spawn(process.execPath, [ENGINE, '-c', cfg, '--log.level', 'debug'], { cwd: dir });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d));
    await until(() => err.includes('Input is now active'), child);
    child.kill('SIGTERM');
    await until(() => err.includes('Shutting down'), child);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    assert.equal(code, 1);
    assert.match(err, /Received SIGTERM again: forcing exit/);
  });

  it('serves /ping and /ready on the service-wide HTTP server', async () => {
    const cfg = file(
      'http.yaml',
      `http: { address: 127.0.0.1:0 }\nlogger: { level: INFO, format: json }\ninput:\n  generate: { mapping: 'root = "x"', interval: 50ms }\noutput: { drop: {} }\n`,
    );
    const child = spawn(process.execPath, [ENGINE, '-c', cfg], { cwd: dir });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d));
    await until(() => /"address":"127\.0\.0\.1:\d+"/.test(err) && err.includes('Input is now active'), child);
    const port = Number(/"address":"127\.0\.0\.1:(\d+)"/.exec(err)![1]);
    try {
      assert.equal(await (await fetch(`http://127.0.0.1:${port}/ping`)).text(), 'pong');
      const ready = await fetch(`http://127.0.0.1:${port}/ready`);
      assert.equal(ready.status, 200, await ready.text());
    } finally {
      child.kill('SIGINT');
      await new Promise((r) => child.on('exit', r));
    }
    assert.ok(
      err
        .split('\n')
        .filter(Boolean)
        .every((l) => JSON.parse(l).level !== undefined),
      'json log lines',
    );
  });

  it('blobl runs a mapping on each line of stdin', () => {
    const r = engine(['blobl', 'root.n = this.a * 2\nroot.s = this.s.uppercase() | "none"'], '{"a":1,"s":"x"}\n{"a":2}\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{"n":2,"s":"X"}\n{"n":4,"s":"none"}\n');
    const bad = engine(['blobl', 'root = this.a.nosuchmethod()'], '{}\n');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /mapping:1:\d+ .*nosuchmethod/);
  });

  it('lint reports expression-language errors at their position in the file', () => {
    const cfg = file('lang.yaml', 'input:\n  stdin: {}\n  batching_typo: 1\noutput:\n  drop: {}\n');
    assert.equal(engine(['lint', cfg]).code, 1);
    const bad = file('lang2.yaml', "input:\n  broker:\n    inputs: [ { stdin: {} } ]\n    batching:\n      check: 'this.a =='\noutput:\n  drop: {}\n");
    const r = engine(['lint', bad]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /lang2\.yaml:5:\d+ .*\(root\.input\.broker\.batching\.check\)/);
  });

  it('every YAML example in the README and in docs/ passes lint (the docs stay true)', () => {
    const docs = ['README.md', ...markdownUnder('docs')];
    const text = docs.map((d) => readFileSync(join(ROOT, d), 'utf8')).join('\n');
    const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => dedent(m[1]!));
    assert.ok(blocks.length >= 100, `only ${blocks.length} YAML blocks found`);
    // The plugin walkthrough names a module the reader writes first, and the hub's own config
    // (`# hub.yaml`) is not a stream's (the hub's tests load it); the rest must lint as is.
    const files = blocks.filter((b) => !/^plugins:/m.test(b) && !b.startsWith('# hub.yaml')).map((b, i) => file(`doc-${i}.yaml`, b));
    // Secrets come from the environment in the examples, as they should: give them values.
    const env: Record<string, string> = { ...process.env } as Record<string, string>;
    for (const [, name] of text.matchAll(/\$\{([A-Z_][A-Z0-9_]*)\}/g)) env[name!] = 'set-by-test';
    const r = spawnSync(process.execPath, [ENGINE, 'lint', ...files], { encoding: 'utf8', timeout: 120_000, cwd: dir, env });
    assert.equal(r.status, 0, r.stderr);
  });

  it('the component reference shows every component (but the `none`s) with an example', () => {
    const missing: string[] = [];
    for (const page of markdownUnder('docs/components').filter((p) => !p.endsWith('README.md'))) {
      for (const section of readFileSync(join(ROOT, page), 'utf8').split(/\n## /).slice(1)) {
        const name = section.split('\n')[0]!;
        // A name kept only to refuse it (`kafka_franz`: "Not implemented: refused at load") has nothing to show.
        const covered =
          name === 'none' || section.includes('```yaml') || section.includes('Another name of') || section.includes('Not implemented: refused at load');
        if (!covered) missing.push(`${page}: ${name}`);
      }
    }
    assert.deepEqual(missing, [], "give these components an example in their spec's examples, then run node scripts/components.mjs");
  });

  it('the README plugin walkthrough runs as written, on two threads', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const ts = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => dedent(m[1]!)).find((b) => b.includes("registerProcessor('shout'"));
    const yaml = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => dedent(m[1]!)).find((b) => b.includes('./my-plugin.ts'));
    assert.ok(ts && yaml, 'the walkthrough blocks are in the README');
    // Inside the checkout, so that the plugin resolves @svc/engine as a user's project would.
    const work = mkdtempSync(join(ROOT, '.readme-walkthrough-'));
    try {
      writeFileSync(join(work, 'my-plugin.ts'), ts);
      writeFileSync(join(work, 'my.yaml'), yaml);
      const r = spawnSync(process.execPath, [ENGINE, '-c', join(work, 'my.yaml'), '-s', 'http.enabled=false'], {
        input: 'hi\n',
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, 'HI!!\n');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('every config in configs/ passes lint', () => {
    const files = readdirSync(join(ROOT, 'configs'))
      .filter((f) => /\.ya?ml$/.test(f))
      .map((f) => join(ROOT, 'configs', f));
    assert.ok(files.length >= 2);
    const r = engine(['lint', ...files]);
    assert.equal(r.code, 0, r.stderr);
  });
});
