/**
 * `import "file"` (the file's maps) and `from "file"` (the file is the whole mapping), read when the
 * mapping compiles. The answers are what Benthos v4.51 printed for the same files, e.g.
 *
 *   (echo '{"a":1}'; sleep 0.4) | /tmp/peers/bin/benthos blobl 'import "m1.blobl"
 *   root = this.apply("foo")'                                   # {"x":1}
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Message } from '../message/message.js';
import { InterpError, compileMapping } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'blobl-import-'));
const maps = join(dir, 'm1.blobl');
const whole = join(dir, 'm2.blobl');
const self = join(dir, 'self.blobl');
writeFileSync(maps, 'map foo {\n  root.x = this.a\n}\n');
writeFileSync(whole, 'root.y = this.a + 1\n');
writeFileSync(self, `import "${self}"\n`);

function run(mapping: string): unknown {
  const msg = new Message('{"a":1}');
  return compileMapping(mapping).exec(msg, { batch: [msg], index: 0 }).root;
}

function parseError(mapping: string): string {
  try {
    compileMapping(mapping);
  } catch (e) {
    if (e instanceof InterpError) return e.reason;
    throw e;
  }
  assert.fail('expected a parse error');
}

describe('import and from read mappings from files', () => {
  it('import brings in the maps of a file', () => {
    assert.deepEqual(run(`import "${maps}"\nroot = this.apply("foo")`), { x: 1 });
  });

  it('from runs the mapping of a file', () => {
    assert.deepEqual(run(`from "${whole}"`), { y: 2 });
  });

  it('refuses what Benthos refuses, with its words', () => {
    assert.equal(parseError(`import "${join(dir, 'nope.blobl')}"`), `failed to read import: open ${join(dir, 'nope.blobl')}: no such file or directory`);
    assert.equal(parseError(`import "${whole}"\nroot = 1`), `no maps to import from '${whole}'`);
    assert.match(parseError(`from "${whole}"\nroot.z = 1`), /^unexpected content after single root import: /);
  });

  it('a file that imports itself fails instead of recursing', () => {
    assert.match(parseError(`import "${self}"`), /import cycle or nesting too deep/);
  });

  it('a mapping from data (the bloblang method) reads no file, as Benthos disables imports there', () => {
    const doc = (m: string): unknown => {
      const msg = new Message(JSON.stringify({ m }));
      try {
        return compileMapping('root = {"a":3}.bloblang(this.m)').exec(msg, { batch: [msg], index: 0 }).root;
      } catch (e) {
        return (e as Error).message;
      }
    };
    // Benthos: failed to read import: imports are disabled in this context: impor(t ...), with a snippet
    assert.equal(doc(`import "${maps}"\nroot = this.apply("foo")`), 'failed assignment (line 1): failed to read import: imports are disabled in this context');
    assert.equal(doc(`from "${whole}"`), 'failed assignment (line 1): failed to read import: imports are disabled in this context');
    // its own maps and variables work
    assert.deepEqual(doc('map x {\n  root = this.a\n}\nlet v = 5\nroot.b = this.apply("x")\nroot.d = $v'), { b: 3, d: 5 });
  });
});
