/** End to end: whole configs run by the `engine` CLI, as an operator runs them. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const ENGINE = join(ROOT, 'engine/dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'svc-mapping-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function engine(args: string[], input = '', env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [ENGINE, ...args], { input, encoding: 'utf8', timeout: 20_000, env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

describe('engine CLI with mapping, switch processor and switch output', () => {
  it('maps stdin lines and routes them to two files, failed ones to the dead letter file', () => {
    const good = join(dir, 'good.jsonl');
    const dead = join(dir, 'dead.jsonl');
    const config = join(dir, 'route.yaml');
    writeFileSync(
      config,
      `http: { enabled: false }
input:
  stdin: { codec: lines }
pipeline:
  threads: 1
  processors:
    - mapping: |
        root.id = this.id
        root.price = this.price.number()
        meta kind = if this.price.number() > 10 { "big" } else { "small" }
    - switch:
        - check: '@kind == "big"'
          processors:
            - mutation: 'root.review = true'
output:
  switch:
    strict_mode: true
    cases:
      - check: errored()
        output:
          file: { path: ${dead}, codec: lines }
          processors:
            - mapping: 'root = {"error": error(), "content": content().string()}'
      - output:
          file: { path: ${good}, codec: lines }
`,
    );
    const input = ['{"id":1,"price":"5"}', '{"id":2,"price":"lots"}', '{"id":3,"price":"20"}', 'not json', '{"id":5,"price":1}'].join('\n') + '\n';
    const r = engine(['-c', config], input);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(good), ['{"id":1,"price":5}', '{"id":3,"price":20,"review":true}', '{"id":5,"price":1}']);
    const failed = lines(dead).map((l) => JSON.parse(l) as { error: string; content: string });
    assert.deepEqual(
      failed.map((f) => f.content),
      ['{"id":2,"price":"lots"}', 'not json'],
    );
    assert.match(failed[0]!.error, /^failed assignment \(line 2\): .*lots/);
    assert.match(failed[1]!.error, /^failed assignment \(line 1\): unable to reference message as structured/);
  });

  it('lints and runs configs/dead-letter.yaml: every third message ends in the dead letter file', () => {
    const config = join(ROOT, 'configs/dead-letter.yaml');
    const lint = engine(['lint', config]);
    assert.equal(lint.code, 0, lint.stderr);
    const dead = join(dir, 'example-dead-letter.jsonl');
    const r = engine(['-c', config], '', { DEAD_LETTER_PATH: dead });
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { n: number; total: number });
    assert.deepEqual(
      out.map((o) => o.n),
      [1, 2, 4, 5, 7, 8],
    );
    assert.ok(out.every((o) => o.total === 6));
    assert.deepEqual(
      lines(dead).map((l) => (JSON.parse(l) as { error: string }).error),
      [3, 6, 9].map((n) => `failed assignment (line 4): order ${n} has no price list`),
    );
  });

  it('refuses a config whose mapping or check does not compile, naming file:line:col', () => {
    const config = join(dir, 'bad.yaml');
    writeFileSync(
      config,
      `http: { enabled: false }
input: { stdin: {} }
pipeline:
  processors:
    - mapping: 'root = this.'
output:
  switch:
    cases:
      - check: 'this.a =='
        output: { drop: {} }
`,
    );
    const r = engine(['lint', config]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /bad\.yaml:5:\d+ .*\(root\.pipeline\.processors\.0\.mapping\)/);
    assert.match(r.stderr, /bad\.yaml:9:\d+ .*\(root\.output\.switch\.cases\.0\.check\)/);
  });
  it('logs a failing processor at ERROR with its path, throttled, with a count of what was left out', () => {
    const config = join(dir, 'failing.yaml');
    writeFileSync(
      config,
      `http: { enabled: false }
logger: { level: INFO, format: json }
input:
  stdin: { codec: lines }
pipeline:
  threads: 1
  processors:
    - mapping: 'root.n = this.n.number()'
output:
  drop: {}
`,
    );
    const input = Array.from({ length: 5000 }, (_, i) => `{"n":"not a number ${i}"}`).join('\n') + '\n';
    const r = engine(['-c', config], input);
    assert.equal(r.code, 0, r.stderr);
    const logged = (r.stderr + r.stdout)
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: string; msg: string; path?: string });
    const errors = logged.filter((l) => l.level === 'error' && l.path === 'root.pipeline.processors.0');
    assert.ok(errors.length >= 1, `the failure is logged at ERROR with the processor's path: ${r.stderr}`);
    assert.match(errors[0]!.msg, /number/);
    assert.ok(errors.length < 50, `throttled: ${errors.length} lines for 5000 failures`);
    const counted = errors.reduce((n, e) => n + (Number(/(\d+) more/.exec(e.msg)?.[1] ?? 0) || 0), 0);
    assert.ok(counted > 0, 'the lines left out are counted');
  });
});
