/**
 * The run flags Benthos users type: `engine create`, `-e` dotenv files, `--chilled` and `-w`
 * (reload on change, draining the old stream). Each runs the real CLI as a child process.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { parseDotEnv } from './env-files.js';

const ENGINE = fileURLToPath(new URL('./main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-run-flags-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function engine(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [ENGINE, ...args], { encoding: 'utf8', timeout: 60_000, cwd: dir });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const GENERATE = (extra = '') => `http:
  enabled: false
input:
  generate:
    count: \${N}
    interval: ""
    mapping: root = "\${GREETING}"
${extra}output:
  stdout: {}
`;

/** Every key path of a YAML value (`input.stdin.codec`), list items by index. */
function fieldPaths(v: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (v === null || typeof v !== 'object') return out;
  for (const [k, x] of Object.entries(v)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.add(p);
    fieldPaths(x, p, out);
  }
  return out;
}

/** What Benthos v4.51 printed for `/tmp/peers/bin/benthos create stdin/mapping,decompress,unarchive/socket`. */
const BENTHOS_CREATE = `http:
  enabled: true
  address: 0.0.0.0:4195
  root_path: /benthos
  debug_endpoints: false
  cert_file: ""
  key_file: ""
  cors:
    enabled: false
    allowed_origins: []
  basic_auth:
    enabled: false
    realm: restricted
    username: ""
    password_hash: ""
    algorithm: sha256
    salt: ""
input:
  stdin:
    scanner:
      lines: {}
    auto_replay_nacks: true
buffer:
  none: {}
pipeline:
  threads: -1
  processors:
    - mapping: "" # No default (required)
    - decompress:
        algorithm: "" # No default (required)
    - unarchive:
        format: "" # No default (required)
output:
  socket:
    network: "" # No default (required)
    address: /tmp/benthos.sock # No default (required)
    codec: lines
input_resources: []
processor_resources: []
output_resources: []
cache_resources: []
rate_limit_resources: []
logger:
  level: INFO
  format: logfmt
  add_timestamp: false
  level_name: level
  timestamp_name: time
  message_name: msg
  static_fields:
    '@service': benthos
  file:
    path: ""
    rotate: false
    rotate_max_age_days: 0
metrics:
  none: {}
  mapping: ""
tracer:
  none: {}
shutdown_delay: 0s
shutdown_timeout: 20s
tests: []
`;

describe('engine create, -e, --chilled and -w', () => {
  it('create prints a config with the named components at their defaults, which lints once the required fields are filled', () => {
    const r = engine(['create', 'stdin/mapping,log/fallback']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /- mapping: "" # No default \(required\)/);
    const conf = parse(r.stdout) as { input: unknown; pipeline: { processors: unknown[] }; output: unknown; logger: unknown };
    assert.deepEqual(Object.keys(conf.input as object), ['stdin']);
    assert.equal(conf.pipeline.processors.length, 2);
    assert.deepEqual(conf.output, { fallback: [] });
    assert.ok(conf.logger, 'the full config has every section');
    const small = engine(['create', '--small', 'generate//drop']);
    assert.deepEqual(Object.keys(parse(small.stdout) as object), ['input', 'pipeline', 'output']);
    const p = file('created.yaml', small.stdout.replace('mapping: "" # No default (required)', 'mapping: root = 1'));
    assert.equal(engine(['lint', p]).code, 0);
    const bad = engine(['create', 'nope']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /unrecognised input type: nope/);
  });

  it('create prints only fields Benthos knows, so its output lints on Benthos as on svc', () => {
    const expression = 'stdin/mapping,decompress,unarchive/socket';
    const ours = engine(['create', expression]);
    assert.equal(ours.code, 0, ours.stderr);
    const known = fieldPaths(parse(BENTHOS_CREATE));
    // Benthos' lint accepts these deprecated stdin fields (its create hides them), and the core build
    // that printed BENTHOS_CREATE has no prometheus metrics: the full build's is `prometheus: {}`.
    for (const p of ['input.stdin.codec', 'input.stdin.max_buffer', 'metrics.prometheus']) known.add(p);
    const unknown = [...fieldPaths(parse(ours.stdout))].filter((p) => !known.has(p));
    assert.deepEqual(unknown, [], 'fields Benthos v4.51 lint refuses (svc-only fields such as dispatch, plugins, prefix, tls)');
    const filled = ours.stdout
      .replace('mapping: "" # No default (required)', 'mapping: root = this')
      .replace('algorithm: "" # No default (required)', 'algorithm: gzip')
      .replace('format: "" # No default (required)', 'format: lines')
      .replace('network: "" # No default (required)', 'network: unix')
      .replace('address: "" # No default (required)', 'address: /tmp/svc.sock');
    const lint = engine(['lint', file('created-full.yaml', filled)]);
    assert.equal(lint.code, 0, lint.stderr);
  });

  it("-s sets YAML values, also where the file has no key (as Benthos' --set)", () => {
    const conf = file('set.yaml', 'http:\n  enabled: false\ninput:\n  generate:\n    interval: ""\n    mapping: root = "s"\noutput:\n  stdout: {}\n');
    const r = engine(['-c', conf, '-s', 'input.generate.count=2', '-s', 'pipeline.threads=2', '-s', 'output.stdout.codec=lines']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 's\ns\n');
    const wrong = engine(['-c', conf, '-s', 'input.generate.count=many']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /expected an integer at root\.input\.generate\.count, got the string "many"/);
  });

  it('-e reads dotenv files (quotes, comments, later files win) before the config', () => {
    assert.deepEqual(parseDotEnv('# c\nA=1\nB = "x\\ny" # c\nC=\'raw # kept\'\nD=plain # dropped\nE="""multi\nline"""\n', 'f'), {
      A: '1',
      B: 'x\ny',
      C: 'raw # kept',
      D: 'plain',
      E: 'multi\nline',
    });
    const one = file('one.env', 'GREETING="hi there"\nN=5\n');
    const two = file('two.env', 'N = 2\n');
    const r = engine(['-e', one, '-e', two, '-c', file('env.yaml', GENERATE())]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'hi there\nhi there\n');
  });

  it('--chilled runs a config with unknown fields (warned), which otherwise refuses to run; other errors still refuse', () => {
    const env = file('c.env', 'GREETING=x\nN=1\n');
    const conf = file('chilled.yaml', GENERATE().replace('    interval: ""\n', '    interval: ""\n    bogus: 1\n'));
    const strict = engine(['-e', env, '-c', conf]);
    assert.equal(strict.code, 1);
    assert.match(strict.stderr, /field bogus not expected at root\.input\.generate/);
    assert.match(strict.stderr, /to prevent shutdown run engine with --chilled/);
    const chilled = engine(['--chilled', '-e', env, '-c', conf]);
    assert.equal(chilled.code, 0, chilled.stderr);
    assert.equal(chilled.stdout, 'x\n');
    assert.match(chilled.stderr, /level=warn msg="Config lint error: .*field bogus not expected/);
    const wrongType = engine(['--chilled', '-e', env, '-c', file('typed.yaml', GENERATE().replace('count: ${N}', 'count: many'))]);
    assert.equal(wrongType.code, 1);
  });

  it('-w reloads a changed config: the old stream drains, the new one runs; a broken edit keeps the old one', async () => {
    const conf = file('watched.yaml', 'http:\n  enabled: false\ninput:\n  generate:\n    interval: 20ms\n    mapping: root = "v1"\noutput:\n  stdout: {}\n');
    const child = spawn(process.execPath, [ENGINE, '-w', '-c', conf], { cwd: dir });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const until = async (cond: () => boolean, what: string) => {
      for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(cond(), `gave up waiting for ${what}: ${err}`);
    };
    try {
      await until(() => out.includes('v1\n'), 'v1');
      writeFileSync(conf, 'http:\n  enabled: false\ninput:\n  generate:\n    interval: 20ms\n    mapping: root = [\noutput:\n  stdout: {}\n');
      await until(() => err.includes('Failed to reload the config, the running stream is kept'), 'the reload error');
      const before = out.length;
      await until(() => out.length > before, 'v1 after the broken edit');
      writeFileSync(conf, 'http:\n  enabled: false\ninput:\n  generate:\n    interval: 20ms\n    mapping: root = "v2"\noutput:\n  stdout: {}\n');
      await until(() => out.includes('v2\n'), 'v2');
      assert.match(err, /Updated the stream from the changed config/);
      // An atomic save (an editor's, `sed -i`'s): a new file renamed over the old one is seen too.
      const tmp = join(dir, '.watched.yaml.swp');
      writeFileSync(tmp, 'http:\n  enabled: false\ninput:\n  generate:\n    interval: 20ms\n    mapping: root = "v3"\noutput:\n  stdout: {}\n');
      renameSync(tmp, conf);
      await until(() => out.includes('v3\n'), 'v3 after an atomic save');
      writeFileSync(tmp, 'http:\n  enabled: false\ninput:\n  generate:\n    interval: 20ms\n    mapping: root = "v4"\noutput:\n  stdout: {}\n');
      renameSync(tmp, conf);
      await until(() => out.includes('v4\n'), 'v4 after a second atomic save');
      // Once v2 started, v1 never comes again: the old stream was stopped before it.
      const lines = out.trim().split('\n');
      const firstV2 = lines.indexOf('v2');
      const firstV3 = lines.indexOf('v3');
      const firstV4 = lines.indexOf('v4');
      assert.ok(
        lines.slice(firstV2, firstV3).every((l) => l === 'v2') &&
          lines.slice(firstV3, firstV4).every((l) => l === 'v3') &&
          lines.slice(firstV4).every((l) => l === 'v4'),
        out,
      );
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, err);
  });
});
