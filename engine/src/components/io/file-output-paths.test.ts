/**
 * An interpolated output path stays in the folder its literal text names: `unarchive` entries
 * named `../x` (or whose interpolated name makes a leading `/`) written through `file` with
 * `${! meta("archive_filename") }` are refused and reported, never written, while the legitimate
 * entries are. The engine CLI runs the whole pipeline; containedPath's cases are checked alone.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Message, compileInterpolation, containedPath } from '@svc/engine';
import { EngineProcess, waitFor } from '@svc/engine/testing';
import { writeTar } from '../batch/tar.js';
import { writeZip } from '../batch/zip.js';

function pathFor(template: string, name: string): string {
  const m = new Message('', { f: name });
  return containedPath(compileInterpolation(template), m, { batch: [m], index: 0 }, 'file output');
}

describe('interpolated output paths', () => {
  it('containedPath: what stays inside the literal folder is kept, what leaves it is refused', () => {
    assert.equal(pathFor('./out/${! meta("f") }', 'a/b.txt'), './out/a/b.txt');
    assert.equal(pathFor('/data/in-${! meta("f") }.json', 'x'), '/data/in-x.json');
    assert.equal(pathFor('${! meta("f") }', 'rel/ok'), 'rel/ok');
    assert.equal(pathFor('./out/${! meta("f") }', 'a..b'), './out/a..b', '".." inside a name is no segment');
    assert.equal(pathFor('../up/${! meta("f") }', 'x'), '../up/x', 'the literal part may climb: the config says so');
    const refused: [string, string, RegExp][] = [
      ['./out/${! meta("f") }', '../x', /a "\.\." segment comes from interpolated text/],
      ['./out/${! meta("f") }', 'a/../../x', /a "\.\." segment comes from interpolated text/],
      ['./out/.${! meta("f") }', './x', /a "\.\." segment comes from interpolated text/],
      ['${! meta("f") }', '/etc/passwd', /its leading "\/" comes from interpolated text/],
      ['./out/${! meta("f") }', '.', /is not inside "\.\/out\/"/],
      ['./out/file-${! meta("f") }', '/../../x', /"\.\." segment/],
    ];
    for (const [template, name, why] of refused) assert.throws(() => pathFor(template, name), why, `${template} with ${JSON.stringify(name)}`);
  });

  for (const format of ['tar', 'zip'] as const) {
    it(`engine CLI: a ${format} entry named ../x is not written outside the folder; the others are`, async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-io-paths-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const items = [
        { name: 'ok.txt', content: Buffer.from('fine') },
        { name: '../x', content: Buffer.from('evil') },
        { name: 'sub/ok2.txt', content: Buffer.from('fine too') },
      ];
      const archive = (format === 'tar' ? writeTar(items) : writeZip(items)).toString('hex');
      const engine = new EngineProcess(`
http: { enabled: false }
input:
  generate: { count: 1, interval: "", mapping: 'root = "${archive}".decode("hex")' }
pipeline:
  processors:
    - unarchive: { format: ${format} }
output:
  file: { path: '${dir}/out/\${! meta("archive_filename") }', codec: all-bytes }
`);
      t.after(() => engine.kill());
      await waitFor('the refusal in the log', async () => (/"[^"]*\/out\/\.\.\/x\\" is refused/.test(engine.output()) ? true : undefined));
      await waitFor('the legitimate entries', async () => (existsSync(join(dir, 'out/sub/ok2.txt')) ? true : undefined));
      assert.equal(readFileSync(join(dir, 'out/ok.txt'), 'utf8'), 'fine');
      assert.equal(readFileSync(join(dir, 'out/sub/ok2.txt'), 'utf8'), 'fine too');
      await engine.stop();
      assert.deepEqual(readdirSync(dir), ['out'], 'nothing beside the folder');
      assert.equal(existsSync(join(dir, 'x')), false);
      assert.match(engine.output(), /file output: the path .*\/out\/\.\.\/x\\" is refused: a \\"\.\.\\" segment comes from interpolated text/);
    });
  }
});
