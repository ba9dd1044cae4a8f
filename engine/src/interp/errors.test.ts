/**
 * Compile errors carry the 1-based line and column of the offending token, so a config linter
 * can point at it; runtime errors name the failing line and the query that produced the value.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Message } from '../message/message.js';
import { InterpError, compileInterpolation, compileMapping, compileQuery } from './index.js';

function compileError(fn: () => unknown): InterpError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof InterpError, `expected an InterpError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected compilation to fail');
}

function expectAt(src: string, line: number, col: number, text: string): void {
  const e = compileError(() => compileMapping(src));
  assert.equal(e.line, line, `line of ${JSON.stringify(e.message)}`);
  assert.equal(e.col, col, `column of ${JSON.stringify(e.message)}`);
  assert.ok(e.message.includes(text), `${JSON.stringify(e.message)} should contain ${JSON.stringify(text)}`);
  assert.ok(e.message.startsWith(`line ${line} char ${col}: `));
}

describe('syntax errors', () => {
  it('points at a missing operand', () => expectAt('root = this.foo +', 1, 18, 'expected a query'));
  it('points at a missing closing bracket', () => expectAt('root = (1 + 2', 1, 14, 'expected ")"'));
  it('points at an unterminated string', () => expectAt('root.a = "unterminated', 1, 10, 'end of quoted string'));
  it('points at an invalid escape', () => expectAt('root = "\\q"', 1, 9, 'invalid escape'));
  it('rejects two statements on one line', () => expectAt('root.a = 1 root.b = 2', 1, 12, 'expected a line break'));
  it('rejects an empty assignment', () => expectAt('root = ', 1, 8, 'expected a query'));
  it('rejects a missing object colon', () => expectAt('root = {"a" 1}', 1, 13, 'expected ":"'));
  it('rejects an empty match case body', () => expectAt('root = match this { "a" => }', 1, 28, 'expected a query'));
  it('rejects an else without a block', () => expectAt('root = if this.a { 1 } else', 1, 28, 'expected "{"'));
  it('rejects statements after the shorthand form', () => expectAt('this.a.b\nroot = 1', 2, 1, 'shorthand'));
  it('rejects let without a name', () => expectAt('let = 5', 1, 5, 'variable name'));
  it('rejects reserved lambda names', () => expectAt('root = this.a.map_each(this -> this)', 1, 24, 'not allowed'));
  it('rejects shadowing a lambda context', () => expectAt('root = this.a.map_each(x -> x.b.map_each(x -> x))', 1, 42, 'shadow'));
  it('rejects meta assignments inside maps', () => expectAt('map foo {\n  meta a = 1\n}', 2, 3, 'not allowed'));
  it('rejects a stray character', () => expectAt('root = this.a ^ 2', 1, 15, 'unexpected character'));
  it('reports errors on later lines', () => expectAt('root.a = 1\n\n  root.b = (2 +\n', 4, 1, 'expected a query'));
});

describe('unknown functions and methods', () => {
  it('unknown function', () => expectAt('root.a = nope()', 1, 10, "unrecognised function 'nope'"));
  it('unknown method', () => expectAt('root = this.foo.nope()', 1, 17, "unrecognised method 'nope'"));
  it('unknown method on line 3', () => expectAt('root.a = 1\nroot.b = 2\nroot.c = this.x.bad_method()', 3, 17, 'bad_method'));
  it('unknown map', () => expectAt('root = this.apply("missing")', 1, 13, 'map missing was not found'));
  it('errors in unused maps are still reported', () => expectAt('map m {\n  root = nope()\n}\nroot = 1', 2, 10, 'nope'));
  it('bad constant arguments are compile errors', () => expectAt('root = this.a.hash("nope")', 1, 15, 'unrecognised hash type'));
  it('bad constant regex is a compile error', () => expectAt('root = this.re_match("(")', 1, 13, 'error parsing regexp'));
  it('constant arithmetic errors are compile errors', () => expectAt('root = 1 / 0', 1, 10, 'divide by zero'));
});

describe('argument checks', () => {
  it('too many arguments', () => expectAt('root = "a".uppercase(1)', 1, 12, 'wrong number of arguments, expected 0, got 1'));
  it('too few arguments', () => expectAt('root = this.a.replace_all("x")', 1, 15, 'wrong number of arguments, expected 2, got 1'));
  it('too many function arguments', () => expectAt('root = uuid_v4(1)', 1, 8, 'wrong number of arguments'));
  it('optional arguments give a range', () => expectAt('root = range()', 1, 8, 'expected 2 to 3, got 0'));
  it('mixing named and positional', () => expectAt('root = this.a.replace_all(old: "a", "b")', 1, 15, 'cannot mix named and nameless'));
  it('unknown named argument', () => expectAt('root = this.a.slice(lo: 1)', 1, 21, "unknown named argument 'lo'"));
  it('duplicate named argument', () => expectAt('root = range(start: 1, start: 2, stop: 3)', 1, 24, 'duplicate'));
  it('missing named argument', () => expectAt('root = range(start: 1)', 1, 8, "missing required argument 'stop'"));
  it('a lambda where a value is expected', () => expectAt('root = this.a.contains(x -> x)', 1, 24, 'does not take a lambda'));
});

describe('queries and interpolations', () => {
  it('query syntax error position', () => {
    const e = compileError(() => compileQuery('this.a ==\n'));
    assert.deepEqual([e.line, e.col], [2, 1]);
  });
  it('query must be one expression', () => {
    const e = compileError(() => compileQuery('this.a this.b'));
    assert.deepEqual([e.line, e.col], [1, 8]);
  });
  it('interpolation error position inside the text', () => {
    const e = compileError(() => compileInterpolation('abc ${! this.a.nope() }'));
    assert.deepEqual([e.line, e.col], [1, 16]);
  });
  it('interpolation error on a later line', () => {
    const e = compileError(() => compileInterpolation('line1\nx ${! this.a +  }'));
    assert.deepEqual([e.line, e.col], [2, 17]);
  });
  it('unterminated interpolation', () => {
    const e = compileError(() => compileInterpolation('${! this.a '));
    assert.ok(e.message.includes('end of interpolation'));
  });
  it('unterminated escape', () => {
    const e = compileError(() => compileInterpolation('x ${{! unterminated'));
    assert.deepEqual([e.line, e.col], [1, 3]);
  });
});

describe('runtime errors', () => {
  const run = (src: string, doc: unknown): Error => {
    const msg = new Message(JSON.stringify(doc));
    try {
      compileMapping(src).exec(msg, { batch: [msg], index: 0 });
    } catch (e) {
      assert.ok(e instanceof Error);
      assert.ok(!(e instanceof InterpError), 'runtime errors are not compile errors');
      return e;
    }
    assert.fail('expected the mapping to fail');
  };
  it('names the line and the types', () => {
    assert.equal(
      run('root.a = 1\nroot.b = this.n + 1', { n: 'abc' }).message,
      'failed assignment (line 2): cannot add types string (from field `this.n`) and number (from number literal)',
    );
  });
  it('names the method target and the value', () => {
    assert.equal(run('root = this.n.uppercase()', { n: 5 }).message, 'failed assignment (line 1): expected string value, got number from field `this.n` (5)');
  });
  it('names the line inside an if block', () => {
    assert.match(
      run('root.a = 1\nif true {\n  root.b = this.x.number()\n}', { x: 'x' }).message,
      /^failed assignment \(line 3\): field `this.x`: strconv.ParseFloat/,
    );
  });
  it('a failing map names its own line', () => {
    assert.match(
      run('map m {\n  root = this.uppercase()\n}\nroot = 5.apply("m")', {}).message,
      /^failed assignment \(line 2\): expected string value, got number/,
    );
  });
  // A message that is not one JSON document: Go's encoding/json texts, as Benthos' mapping processor
  // words them (internal/bloblang/mapping/executor.go mapPart; benthos blobl v4.51 prints the same
  // without `failed assignment (line 1): `), and json() with the parse error alone.
  it('says why the message is not JSON as Go does', () => {
    const raw = (src: string, content: string): string => {
      const msg = new Message(content);
      try {
        compileMapping(src).exec(msg, { batch: [msg], index: 0 });
      } catch (e) {
        return (e as Error).message;
      }
      return assert.fail('expected the mapping to fail');
    };
    const ref = "failed assignment (line 1): unable to reference message as structured (with 'this";
    assert.equal(raw('root = this', 'abc'), `${ref}'): parse as json: invalid character 'a' looking for beginning of value`);
    assert.equal(raw('root = this.a', '{"a":1'), `${ref}.a'): parse as json: unexpected EOF`);
    assert.equal(raw('root = this', '1 2'), `${ref}'): parse as json: message contains multiple valid documents`);
    assert.equal(raw('root = this.a', '{"a":1} x'), `${ref}.a'): parse as json: invalid character 'x' looking for beginning of value`);
    assert.equal(raw('root = this', '  '), `${ref}'): parse as json: EOF`);
    assert.equal(raw('root = json()', '[1,'), 'failed assignment (line 1): unexpected EOF');
  });
});
