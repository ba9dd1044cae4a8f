/**
 * `engine test` runs configs' unit tests as `benthos test` does: the `tests:` section or the
 * companion NAME_benthos_test.yaml, mocks, environment, resource targets, every output condition,
 * and Benthos' report (exit 1 with a diff per failed condition). The same folder is tested with
 * Benthos v4.51.0 when it is built (/tmp/peers/bin/benthos): the verdicts and failure lines match.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ENGINE = fileURLToPath(new URL('./main.js', import.meta.url));
const BENTHOS = process.env.SVC_BENTHOS ?? '/tmp/peers/bin/benthos';
const dir = mkdtempSync(join(tmpdir(), 'svc-test-cmd-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function files(sub: string, all: Record<string, string>): string {
  const d = join(dir, sub);
  mkdirSync(d, { recursive: true });
  for (const [name, text] of Object.entries(all)) writeFileSync(join(d, name), text);
  return d;
}

function run(bin: string[], cwd: string, args: string[]): { code: number | null; out: string } {
  const r = spawnSync(bin[0]!, [...bin.slice(1), 'test', ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  // Benthos colours its report; the words are what is compared.
  return { code: r.status, out: (r.stdout + r.stderr).replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '') };
}

const svc = (cwd: string, ...args: string[]) => run([process.execPath, ENGINE], cwd, args);

const DOUBLES = `pipeline:
  processors:
    - mapping: |
        root = this
        root.doubled = this.n * 2
        meta kind = "num"
output:
  stdout: {}
tests:
  - name: doubles n
    input_batch:
      - content: '{"n": 2}'
        metadata: {a: b}
    output_batches:
      - - json_equals: {"n": 2, "doubled": 4}
          metadata_equals: {kind: num, a: b}
          bloblang: 'this.doubled == 4'
  - name: wrong expectation
    input_batch:
      - json_content: {"n": 3}
      - content: '{"n": 1}'
    output_batches:
      - - json_equals: {"n": 3, "doubled": 7}
          metadata_equals: {kind: other}
        - bloblang: 'this.doubled == 3'
`;

const MOCKED = `pipeline:
  processors:
    - label: fetch
      mapping: 'root = throw("would call out")'
    - resource: tidy
processor_resources:
  - label: tidy
    mapping: 'root = this.merge({"env": "\${STAGE:none}"})'
tests:
  - name: mocked
    environment: {STAGE: test}
    mocks:
      fetch:
        mapping: 'root = {"id": 7}'
    input_batch: [{content: x}]
    output_batches: [[{json_equals: {"id": 7, "env": "test"}}]]
  - name: one resource
    target_processors: tidy
    input_batch: [{json_content: {"a": 1}}, {json_content: {"a": 2}}]
    output_batches: [[{json_contains: {"env": "none"}}, {json_contains: {"a": 3}}]]
  - name: by pointer
    target_processors: /pipeline/processors/0
    mocks:
      /pipeline/processors/0:
        mapping: 'root = "mocked " + content().string()'
    input_batches: [[{content: a}], [{content: b, metadata: {k: 5}}]]
    output_batches:
      - [{content_equals: mocked a}]
      - [{content_matches: '^mocked [a-z]$', metadata_equals: {k: 5}}, {content_equals: extra}]
`;

const EXPECTED = `Test 'doubles.yaml' failed
Test 'mocked.yaml' failed
Test 'ordered.yaml' succeeded
Test 'upper.yaml' succeeded

Failures:

--- doubles.yaml ---

wrong expectation [line 18]:
batch 0 message 0: json_equals: JSON content mismatch
{
    "doubled": 6 => 7,
    "n": 3
}
batch 0 message 0: metadata_equals: metadata key 'kind' mismatch
  expected: other
  received: num
batch 0 message 1: bloblang: bloblang expression was false

--- mocked.yaml ---

one resource [line 17]:
batch 0 message 1: json_contains: JSON superset mismatch
{
    "a": 2 => 3,
    + "env": "none"
}

by pointer [line 21]:
mismatch of output batch 1 message counts, expected 2, got 1
`;

describe('engine test', () => {
  const folder = files('suite', {
    'doubles.yaml': DOUBLES,
    'mocked.yaml': MOCKED,
    'upper.yaml': 'pipeline:\n  processors:\n    - mapping: root = content().uppercase()\n',
    'upper_benthos_test.yaml': 'tests:\n  - name: upper\n    input_batch: [{content: abc}]\n    output_batches: [[{content_equals: ABC}]]\n',
    'no-tests.yaml': 'input: { stdin: {} }\n',
    // A mapping's keys in its own order here; Benthos writes them sorted, and a test written
    // against its output passes here too (benthos test ordered.yaml: succeeded).
    'ordered.yaml': `pipeline:
  processors:
    - mapping: |
        root.b = 1
        root.a = {"z": 1.5, "y": [{"d": 1, "c": 2}]}
tests:
  - name: key order
    input_batch: [{content: x}]
    output_batches: [[{content_equals: '{"a":{"y":[{"c":2,"d":1}],"z":1.5},"b":1}'}]]
`,
  });

  it('reports every case as Benthos does and exits 1 when one failed', (t) => {
    const r = svc(folder, './...');
    assert.equal(r.out, EXPECTED);
    assert.equal(r.code, 1);
    if (!existsSync(BENTHOS)) return t.diagnostic(`Benthos is not built at ${BENTHOS}: run bash /work/shared/peers/benthos/build.sh to compare against it`);
    const b = run([BENTHOS], folder, ['./...']);
    assert.equal(b.code, 1);
    // The JSON diff's layout differs (Benthos marks keys by colour only): the verdicts, case lines and failure lines agree.
    const words = (out: string) => out.split('\n').filter((l) => /^(Test '|batch \d|mismatch|wrong|unexpected|.* \[line \d+\]:$|--- )/.test(l));
    assert.deepEqual(words(r.out), words(b.out));
  });

  it('json_contains takes array prefixes and nested supersets; JSON numbers compare as written; metadata numbers never equal strings (as Benthos)', (t) => {
    const d = files('conditions', {
      'c.yaml': `pipeline:
  processors:
    - mapping: 'root = this'
tests:
  - name: arr prefix
    input_batch: [{content: '{"a":[1,2],"b":{"c":1,"d":2}}'}]
    output_batches: [[{json_contains: {"a":[1]}}]]
  - name: nested obj
    input_batch: [{content: '{"a":[1,2],"b":{"c":1,"d":2}}'}]
    output_batches: [[{json_contains: {"b":{"c":1}}}]]
  - name: arr objs
    input_batch: [{content: '{"a":[{"x":1,"y":2}]}'}]
    output_batches: [[{json_contains: {"a":[{"x":1}]}}]]
  - name: num eq
    input_batch: [{content: '{"a":1.0}'}]
    output_batches: [[{json_equals: {"a":1}}]]
  - name: meta num
    input_batch: [{content: '{}', metadata: {k: "5", f: 2.0}}]
    output_batches: [[{metadata_equals: {k: 5, f: 2}}]]
`,
    });
    const r = svc(d, 'c.yaml');
    assert.equal(r.code, 1);
    assert.equal(
      r.out,
      `Test 'c.yaml' failed

Failures:

--- c.yaml ---

num eq [line 14]:
batch 0 message 0: json_equals: JSON content mismatch
{
    "a": 1.0 => 1
}

meta num [line 17]:
batch 0 message 0: metadata_equals: metadata key 'k' mismatch
  expected: 5
  received: 5
`,
    );
    if (!existsSync(BENTHOS)) return t.diagnostic(`Benthos is not built at ${BENTHOS}`);
    assert.equal(run([BENTHOS], d, ['c.yaml']).out, r.out);
  });

  it('a config alone, or its companion file, runs only that target; all passing exits 0', () => {
    for (const arg of ['upper.yaml', 'upper_benthos_test.yaml']) {
      const r = svc(folder, arg);
      assert.equal(r.out, "Test 'upper.yaml' succeeded\n");
      assert.equal(r.code, 0);
    }
  });

  it('no tests, or a missing file, is exit 1 with Benthos’ words', () => {
    assert.deepEqual(svc(folder, 'no-tests.yaml'), { code: 1, out: 'No tests were found\n' });
    const r = svc(folder, 'absent.yaml');
    assert.equal(r.code, 1);
    assert.match(r.out, /^Failed to obtain test targets: unable to access target config file 'absent.yaml'/);
  });

  it('a config with a lint error fails its target with the lint', () => {
    const d = files('lint', {
      'bad.yaml': `pipeline:\n  threads: 1\n  procesors: []\ntests:\n  - name: t\n    input_batch: [{content: a}]\n    output_batches: [[{content_equals: a}]]\n`,
    });
    const r = svc(d, 'bad.yaml');
    assert.equal(r.code, 1);
    assert.match(r.out, /Test 'bad.yaml' failed/);
    assert.match(r.out, /Lint: bad.yaml\(3,3\) .*procesors/);
  });

  it('-r adds resources to the configs under test, as for a run', () => {
    const d = files('with-r', {
      'needs-r.yaml':
        'pipeline:\n  processors:\n    - resource: from_r\ntests:\n  - name: uses a -r processor\n    input_batch: [{content: a}]\n    output_batches: [[{content_equals: A}]]\n',
      'r.yaml': 'processor_resources:\n  - label: from_r\n    mapping: root = content().uppercase()\n',
    });
    assert.deepEqual(svc(d, '-r', 'r.yaml', 'needs-r.yaml'), { code: 0, out: "Test 'needs-r.yaml' succeeded\n" });
    const without = svc(d, 'needs-r.yaml');
    assert.equal(without.code, 1);
    assert.match(without.out, /uses a -r processor \[line 5\]:\nfailed to initialise processors: processor resource 'from_r' was not found/);
  });

  it('engine -c runs a config that carries tests (the section is ignored by a run)', () => {
    const d = files('run', {
      'c.yaml': `http: { enabled: false }\ninput:\n  generate: { count: 1, interval: "", mapping: 'root = "hi"' }\noutput:\n  stdout: {}\n${DOUBLES.slice(DOUBLES.indexOf('tests:'))}`,
    });
    const r = spawnSync(process.execPath, [ENGINE, '-c', 'c.yaml', '--log.level', 'OFF'], { cwd: d, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'hi\n');
  });
});
