/**
 * End to end: the `engine` CLI reading a real pipe (stdin) and real files, with a line longer
 * than `max_buffer`: exit code, what reached stdout, what stderr says.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const ENGINE = join(ROOT, 'node_modules/.bin/engine');
const dir = mkdtempSync(join(tmpdir(), 'svc-io-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `engine -c` on a config (YAML), `stdin` written to its standard input through a pipe. */
function engine(name: string, yaml: string, stdin = ''): Promise<Run> {
  const config = join(dir, `${name}.yaml`);
  writeFileSync(config, `http:\n  enabled: false\n${yaml}`);
  const child = spawn(ENGINE, ['-c', config], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.on('error', () => {}); // the engine may stop reading before the end
  child.stdin.end(stdin);
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(killer);
      child.stdout.once('end', () => resolve({ code, stdout, stderr }));
      if (child.stdout.readableEnded) resolve({ code, stdout, stderr });
    }),
  );
}

const LONG = 'x'.repeat(50);

describe('a line longer than max_buffer', () => {
  it('stdin: the lines before it are delivered, then exit 1 naming the input, the limit and the line', async () => {
    const before = Array.from({ length: 10_000 }, (_, i) => `line ${i}`);
    const r = await engine('stdin-error', 'input:\n  stdin:\n    max_buffer: 12\noutput:\n  stdout: {}\n', before.join('\n') + `\n${LONG}\nafter 1\nafter 2\n`);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(r.stdout.split('\n').slice(0, -1), before, 'every line before it, nothing after');
    assert.match(r.stderr, /stdin input \(root\.input\): line 10001 \(starting at byte \d+\) is longer than max_buffer \(12 bytes\)/);
    assert.match(r.stderr, /the 10000 line\(s\) before it are delivered, that line and the rest of stdin were skipped/);
    assert.match(r.stderr, /skip_long_lines: true/);
  });

  it('stdin in a broker with batching and two threads: the batch held is flushed and delivered, then exit 1', async () => {
    const r = await engine(
      'stdin-broker',
      'input:\n  broker:\n    inputs:\n      - stdin:\n          max_buffer: 12\n    batching:\n      count: 1000\n' +
        'pipeline:\n  threads: 2\n  processors:\n    - mapping: root = content().uppercase()\noutput:\n  stdout: {}\n',
      `a\nb\nc\n${LONG}\nd\n`,
    );
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, 'A\nB\nC\n');
    assert.match(r.stderr, /stdin input \(root\.input\.broker\.inputs\.0\): line 4/);
  });

  it('stdin with skip_long_lines: the line is skipped, the rest read, exit 0, the count logged', async () => {
    const r = await engine(
      'stdin-skip',
      'input:\n  stdin:\n    max_buffer: 12\n    skip_long_lines: true\noutput:\n  stdout: {}\n',
      `a\n${LONG}\nb\n${LONG}${LONG}\nc\n${LONG}`,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'a\nb\nc\n');
    assert.match(r.stderr, /stdin: skipped line 2 \(starting at byte 2\): it is longer than max_buffer \(12 bytes/);
    assert.match(r.stderr, /stdin: skipped 3 line\(s\) longer than max_buffer \(12 bytes/);
  });

  it('file: exit 1 naming the file; the files after it are not read', async () => {
    const a = join(dir, 'a.txt');
    const b = join(dir, 'b.txt');
    writeFileSync(a, `a1\na2\n${LONG}\na3\n`);
    writeFileSync(b, 'b1\n');
    const r = await engine('file-error', `input:\n  file:\n    paths: [${a}, ${b}]\n    max_buffer: 10\noutput:\n  stdout: {}\n`);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, 'a1\na2\n');
    assert.ok(r.stderr.includes(`file input (root.input): \\"${a}\\": line 3 (starting at byte 6) is longer than max_buffer (10 bytes)`), r.stderr);
    assert.match(r.stderr, /the rest of the file and 1 more file\(s\) were skipped/);
  });

  it('file with skip_long_lines: every other line of every file, exit 0', async () => {
    const a = join(dir, 'c.txt');
    const b = join(dir, 'd.txt');
    writeFileSync(a, `a1\n${LONG}\na2\n`);
    writeFileSync(b, `${LONG}\nb1\n`);
    const r = await engine('file-skip', `input:\n  file:\n    paths: [${a}, ${b}]\n    max_buffer: 10\n    skip_long_lines: true\noutput:\n  stdout: {}\n`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'a1\na2\nb1\n');
    assert.ok(r.stderr.includes(`file \\"${a}\\": skipped 1 line(s)`), r.stderr);
    assert.ok(r.stderr.includes(`file \\"${b}\\": skipped line 1 (starting at byte 0)`), r.stderr);
  });
});

/**
 * A line is a message, and a batch of one, as Benthos reads stdin and files: what processors,
 * batching policies and interpolations see of batches is what Benthos v4.51 printed for the same
 * YAML and input (each expected text was printed by `printf 'ab\nb\nac\nd\n' | benthos -c cfg.yaml`
 * with the config shown, `logger: {level: none}` added).
 */
describe("batch boundaries are Benthos'", () => {
  const LINES = 'ab\nb\nac\nd\n';
  const FORMAT = `mapping: 'root = "%s %d/%d".format(content(), batch_index(), batch_size())'`;
  const stdinThrough = (processors: string[], input = 'stdin: {}', pipeline = 'threads: 1') =>
    `input:\n  ${input}\npipeline:\n  ${pipeline}\n  processors:\n${processors.map((p) => `    - ${p}\n`).join('')}output:\n  stdout: {}\n`;
  const ARCHIVE = ['archive: {format: lines}', `mapping: 'root = content().string().replace_all("\\n", "|")'`];
  const BATCHED = 'broker: {inputs: [ {stdin: {}} ], batching: {count: 2}}';

  it('stdin: each line is a batch of one (batch_index() / batch_size())', async () => {
    const r = await engine('bounds-size', stdinThrough([FORMAT]), LINES);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'ab 0/1\nb 0/1\nac 0/1\nd 0/1\n');
  });

  it("stdin: an input's own processors see each line as a batch of one too", async () => {
    // The same config with the mapping under input.processors: "ab 0/1\nb 0/1\nac 0/1\nd 0/1\n" from Benthos.
    const r = await engine(
      'bounds-input-processors',
      `input:\n  stdin: {}\n  processors:\n    - ${FORMAT}\npipeline:\n  threads: 1\noutput:\n  stdout: {}\n`,
      LINES,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'ab 0/1\nb 0/1\nac 0/1\nd 0/1\n');
  });

  it('stdin: archive lines archives each line alone; with a batching policy, two at a time', async () => {
    const one = await engine('bounds-archive', stdinThrough(ARCHIVE), LINES);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout, 'ab\nb\nac\nd\n');
    const two = await engine('bounds-archive-batched', stdinThrough(ARCHIVE, BATCHED), LINES);
    assert.equal(two.code, 0, two.stderr);
    assert.equal(two.stdout, 'ab|b\nac|d\n');
  });

  it('stdin: split leaves batches of one alone; over a batch of 4 it cuts 3 + 1', async () => {
    const split = ['split: {size: 3}', FORMAT];
    const one = await engine('bounds-split', stdinThrough(split), LINES);
    assert.equal(one.stdout, 'ab 0/1\nb 0/1\nac 0/1\nd 0/1\n', one.stderr);
    const four = await engine('bounds-split-batched', stdinThrough(split, 'broker: {inputs: [ {stdin: {}} ], batching: {count: 4}}'), LINES);
    assert.equal(four.stdout, 'ab 0/3\nb 1/3\nac 2/3\nd 0/1\n', four.stderr);
  });

  it('stdin: group_by groups within a batch of one, and while loops each line on its own', async () => {
    const groupBy = [
      `group_by: [ {check: 'content().contains("a")', processors: [ {mapping: 'root = "A %s %d/%d".format(content(), batch_index(), batch_size())'} ]} ]`,
      FORMAT,
    ];
    const g = await engine('bounds-group-by', stdinThrough(groupBy), LINES);
    assert.equal(g.stdout, 'A ab 0/1 0/1\nb 0/1\nA ac 0/1 0/1\nd 0/1\n', g.stderr);
    const whileLoop = [
      `mapping: 'meta n = "0"'`,
      `while: {check: 'batch_size() == 1 && meta("n").number() < 2', processors: [ {mapping: 'meta n = (meta("n").number() + 1).string()'} ]}`,
      `mapping: 'root = "%s n=%s".format(content(), meta("n"))'`,
    ];
    const w = await engine('bounds-while', stdinThrough(whileLoop), LINES);
    assert.equal(w.stdout, 'ab n=2\nb n=2\nac n=2\nd n=2\n', w.stderr);
  });

  it('stdin: an output interpolation sees batches of one (${! batch_size() } in a file path)', async () => {
    const out = join(dir, 'bounds-interp');
    const r = await engine(
      'bounds-interp',
      `input:\n  stdin: {}\noutput:\n  file:\n    path: '${out}/size-\${! batch_size() }.txt'\n    codec: lines\n`,
      LINES,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readdirSync(out), ['size-1.txt']);
    assert.equal(readFileSync(join(out, 'size-1.txt'), 'utf8'), LINES);
  });

  it('file: each line is a batch of one (archive, batch_size())', async () => {
    const path = join(dir, 'bounds.txt');
    writeFileSync(path, LINES);
    const r = await engine(
      'bounds-file',
      stdinThrough(
        ['archive: {format: lines}', `mapping: 'root = "%s %d/%d".format(content().string().replace_all("\\n", "|"), batch_index(), batch_size())'`],
        `file: {paths: [${path}]}`,
      ),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'ab 0/1\nb 0/1\nac 0/1\nd 0/1\n');
  });

  it('stdin with a scanner (csv): each row is a batch of one', async () => {
    const r = await engine('bounds-csv', stdinThrough([FORMAT], 'stdin: {scanner: {csv: {}}}'), 'a,b\n1,2\n3,4\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{"a":"1","b":"2"} 0/1\n{"a":"3","b":"4"} 0/1\n');
  });

  it('on the worker pool (threads 2) too: each line a batch of one', async () => {
    const r = await engine('bounds-pool', stdinThrough([FORMAT], 'stdin: {}', 'threads: 2\n  dispatch: pool'), LINES);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.split('\n').slice(0, -1).sort(), ['ab 0/1', 'ac 0/1', 'b 0/1', 'd 0/1']);
  });

  it('stdout: batches of several lines are written with nothing between them', async () => {
    // printf 'a\nb\nc\nd\n' | benthos -c cfg.yaml: "a\nb\nc\nd\n" (v4.51 writes stdout message by message).
    const r = await engine('bounds-stdout', `input:\n  ${BATCHED}\noutput:\n  stdout: {}\n`, 'a\nb\nc\nd\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'a\nb\nc\nd\n');
  });
});

/** Benthos' stdin fields and read_until over stdin; each expected text printed by Benthos v4.51 for the same YAML and input. */
describe("stdin's scanner and read_until, as Benthos", () => {
  it('read_until over stdin stops at the first line that passes: that line is delivered (marked final), nothing after it, exit 0', async () => {
    // printf 'a\nSTOP\nafter\n' | benthos -c cfg.yaml  →  "a -\nSTOP final\n", exit 0
    const r = await engine(
      'read-until-stdin',
      `input:\n  read_until:\n    check: content() == "STOP"\n    input:\n      stdin: {}\npipeline:\n  threads: 1\n  processors:\n    - mapping: 'root = content().string() + " " + @benthos_read_until.or("-")'\noutput:\n  stdout: {}\n`,
      'a\nSTOP\nafter\n',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'a -\nSTOP final\n');
  });

  it('stdin: {scanner: {json_documents: {}}} writes each document again compactly, keys sorted, numbers as float64', async () => {
    // printf '<the input below>' | benthos -c cfg.yaml
    const input = '{\n  "b": 1.50,\n  "a": [1, 2e3, 12345678901234567890, -0.0, 1e21, 1e-7],\n  "c": "<&>\\u00e9\\u2028"\n}\n"x" 3 true null {"z":{}}';
    const r = await engine('json-documents-stdin', 'input:\n  stdin:\n    scanner:\n      json_documents: {}\noutput:\n  stdout: {}\n', input);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{"a":[1,2000,12345678901234567000,-0,1e+21,1e-7],"b":1.5,"c":"<&>é\\u2028"}\n"x"\n3\ntrue\nnull\n{"z":{}}\n');
  });

  it('stdin as `benthos create stdin//stdout` writes it (scanner: {lines: {}}, auto_replay_nacks) runs', async () => {
    const r = await engine(
      'create-stdin',
      'input:\n  stdin:\n    scanner:\n      lines: {}\n    auto_replay_nacks: true\noutput:\n  stdout:\n    codec: lines\n',
      'a\r\nb\n\nc',
    );
    assert.equal(r.code, 0, r.stderr);
    // printf 'a\r\nb\n\nc' | benthos -c cfg.yaml: the lines scanner drops a \r before \n.
    assert.equal(r.stdout, 'a\nb\n\nc\n');
  });
});
