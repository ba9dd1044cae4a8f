/**
 * The config-document loader: YAML and JSON read against one `f` spec, every problem at its
 * file:line:col in the one format of the engine's configs, whatever the format of the file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { parseConfigDocument, readConfigDocument } from './config-document.js';
import { f } from './spec.js';

const spec = f.object({
  port: f.int().default(8080),
  token: f.string().default(''),
  tls: f.object({ cert: f.string() }).optional(),
  hosts: f.array(f.string()).default([]),
});

const messages = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message.split('\n');
  }
  assert.fail('accepted');
};

describe('config documents', () => {
  it('reads YAML and JSON alike: defaults applied, an absent optional section left out', () => {
    const y = parseConfigDocument('port: 9090\nhosts: [a, b]\n', 'a.yaml', spec).result();
    const j = parseConfigDocument('{"port": 9090, "hosts": ["a", "b"]}', 'a.json', spec).result();
    assert.deepEqual(y, { port: 9090, token: '', hosts: ['a', 'b'] });
    assert.deepEqual(j, y);
    assert.equal('tls' in j, false);
  });

  it('places a wrong type at its file:line:col in both formats, and never quotes a string', () => {
    assert.deepEqual(
      messages(() => parseConfigDocument('token: x\nport: s3cret-looking\n', 'a.yaml', spec).result()),
      ['a.yaml:2:7 expected an integer at port, got a string'],
    );
    assert.deepEqual(
      messages(() => parseConfigDocument('{\n  "token": "x",\n  "port": "s3cret-looking"\n}', 'a.json', spec).result()),
      ['a.json:3:11 expected an integer at port, got a string'],
    );
  });

  it("reads JSON with JSON's types: a quoted number is not a number, a number is not a string", () => {
    assert.deepEqual(
      messages(() => parseConfigDocument('{"port": "8080", "token": 5}', 'a.json', spec).result()),
      ['a.json:1:10 expected an integer at port, got a string', 'a.json:1:27 expected a string at token, got number 5'],
    );
    // YAML's own reading stays as the engine's configs have it.
    assert.deepEqual(parseConfigDocument('port: "8080"\ntoken: 5\n', 'a.yaml', spec).result(), { port: 8080, token: '5', hosts: [] });
  });

  it('places syntax errors: invalid JSON (V8 names no position for some) and invalid YAML', () => {
    assert.deepEqual(
      messages(() => parseConfigDocument('{\n  "port": 1,\n  "token": x\n}', 'a.json', spec).result()),
      ["a.json:3:12 invalid JSON: Unexpected token 'x'"],
    );
    assert.match(messages(() => parseConfigDocument('port: [\n', 'a.yaml', spec).result())[0]!, /^a\.yaml:2:1 YAML syntax error: /);
    assert.match(
      messages(() => parseConfigDocument('port: 1\nport: 2\n', 'a.yaml', spec).result())[0]!,
      /^a\.yaml:2:1 YAML syntax error: Map keys must be unique/,
    );
  });

  it('refuses an unknown field, or hands it to the caller', () => {
    assert.deepEqual(
      messages(() => parseConfigDocument('prot: 1\n', 'a.yaml', spec).result()),
      ['a.yaml:1:1 field prot not expected at the top level; did you mean port?'],
    );
    const seen: string[] = [];
    const value = parseConfigDocument('{"tls": {"cert": "c", "key": "k"}}', 'a.json', spec, {
      unknownField: (path: string, at: ConfigIssue) => seen.push(`${path} at ${at.line}:${at.col}`),
    }).result();
    assert.deepEqual(seen, ['tls.key at 1:23']);
    assert.deepEqual(value.tls, { cert: 'c' });
  });

  it('substitutes ${VAR} when given an environment, and places an unset one', () => {
    assert.equal(parseConfigDocument('token: ${T}\n', 'a.yaml', spec, { env: { T: 'from-env' } }).result().token, 'from-env');
    assert.match(
      messages(() => parseConfigDocument('port: 1\ntoken: ${T}\n', 'a.yaml', spec, { env: {} }).result())[0]!,
      /^a\.yaml:2:8 environment variable T is not set/,
    );
  });

  it("takes the caller's own rules at the place they are about, in the file's order", () => {
    const doc = parseConfigDocument('hosts:\n  - a\n  - ""\nport: 0\n', 'a.yaml', spec);
    doc.problem(['port'], 'port: must not be 0');
    doc.problem(['hosts', 1], 'hosts[1]: must not be empty');
    doc.problem(['tls', 'cert'], 'tls.cert: needed here');
    assert.deepEqual(
      messages(() => doc.result()),
      ['a.yaml:1:1 tls.cert: needed here', 'a.yaml:3:5 hosts[1]: must not be empty', 'a.yaml:4:7 port: must not be 0'],
    );
  });

  it('gives f.any() JSON as JSON.parse reads it, and says what a document that is not an object is', () => {
    const text = '{"__proto__": {"x": 1}, "n": 1e400}';
    assert.deepEqual(parseConfigDocument(text, 'a.json', f.any()).result(), JSON.parse(text));
    assert.deepEqual(
      messages(() => parseConfigDocument('[1]', 'a.json', spec, { what: 'the test config' }).result()),
      ['a.json:1:1 expected an object (the test config), got an array'],
    );
  });

  it('reads a file, and says when there is none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-doc-'));
    try {
      writeFileSync(join(dir, 'c.json'), '{"port": 1}');
      assert.equal((await readConfigDocument(join(dir, 'c.json'), spec)).result().port, 1);
      await assert.rejects(readConfigDocument(join(dir, 'none.yaml'), spec), /none\.yaml:0:0 cannot read config: no such file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
