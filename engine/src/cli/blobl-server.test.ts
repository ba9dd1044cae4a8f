/**
 * `engine blobl server`: the real CLI serves the page and Benthos' /execute API (answers compared
 * with what Benthos v4.51's `blobl server` answered for the same requests:
 * `benthos blobl server -n -p P --host 127.0.0.1`, then `curl -XPOST .../execute -d '{...}'`),
 * refuses a cross-site request, and writes the mapping back with -w on exit.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ENGINE = fileURLToPath(new URL('./main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-blobl-server-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('engine blobl server', () => {
  it('answers /execute as Benthos does, refuses other origins, writes back with -w', async () => {
    const mappingFile = join(dir, 'm.blobl');
    writeFileSync(mappingFile, 'root = this');
    const child = spawn(process.execPath, [ENGINE, 'blobl', 'server', '-n', '-p', '0', '--host', '127.0.0.1', '-m', mappingFile, '-w'], { cwd: dir });
    let err = '';
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const port = await new Promise<number>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /Serving at: http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', () => reject(new Error(`exited: ${err}`)));
    });
    try {
      const exec = async (body: unknown, headers: Record<string, string> = {}) => {
        const r = await fetch(`http://127.0.0.1:${port}/execute`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
        return { status: r.status, text: await r.text() };
      };
      // Benthos: {"parse_error":"","mapping_error":"","result":"{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}"}
      // (its keys sorted; here the mapping's order).
      const ok = await exec({ mapping: 'root.a = 1\nroot.b = this.a', input: '{"a":[1,2]}' });
      assert.equal(ok.text, JSON.stringify({ parse_error: '', mapping_error: '', result: '{\n  "a": 1,\n  "b": [\n    1,\n    2\n  ]\n}' }));
      // Benthos: {"parse_error":"","mapping_error":"","result":"X"}
      assert.equal((await exec({ mapping: 'root = content().uppercase()', input: 'x' })).text, '{"parse_error":"","mapping_error":"","result":"X"}');
      // Benthos: {"parse_error":"","mapping_error":"","result":""}
      assert.equal((await exec({ mapping: 'root = deleted()', input: 'x' })).text, '{"parse_error":"","mapping_error":"","result":""}');
      const parse = JSON.parse((await exec({ mapping: 'root = ', input: 'x' })).text) as { parse_error: string };
      assert.match(parse.parse_error, /^failed to parse mapping: line 1 char 8: /);
      const failed = JSON.parse((await exec({ mapping: 'root = this.a', input: 'x' })).text) as { mapping_error: string };
      assert.match(failed.mapping_error, /unable to reference message as structured \(with 'this\.a'\)/);
      assert.equal((await exec({ mapping: 'root = env("HOME")', input: '' }, { origin: 'http://elsewhere.example' })).status, 403);
      const page = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      assert.match(page, /<textarea id="mapping"[^>]*>root = this\.a<\/textarea>/, 'the refused request changed nothing');
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, err);
    assert.equal(readFileSync(mappingFile, 'utf8'), 'root = this.a', 'the last mapping run, written back on exit');
  });
});
