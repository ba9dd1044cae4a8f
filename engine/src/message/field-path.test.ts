import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deletePath, formatPath, getPath, parsePath, setPath } from './field-path.js';

/** Asserts nothing leaked onto the shared prototypes after a hostile write. */
function assertPrototypesClean(): void {
  const probe: Record<string, unknown> = {};
  assert.equal(probe['polluted'], undefined);
  assert.equal((Object.prototype as Record<string, unknown>)['polluted'], undefined);
  assert.equal(Object.getPrototypeOf(probe), Object.prototype);
  assert.equal(({} as Record<string, unknown>)['x'], undefined);
}

describe('parsePath', () => {
  it('splits on dots', () => {
    assert.deepEqual(parsePath('a.b.c'), ['a', 'b', 'c']);
    assert.deepEqual(parsePath('a'), ['a']);
    assert.deepEqual(parsePath('a.0.b'), ['a', '0', 'b']);
  });

  it('treats the empty path as the root (no segments)', () => {
    assert.deepEqual(parsePath(''), []);
  });

  it('keeps empty keys as empty segments', () => {
    assert.deepEqual(parsePath('a..b'), ['a', '', 'b']);
    assert.deepEqual(parsePath('.a'), ['', 'a']);
    assert.deepEqual(parsePath('a.'), ['a', '']);
    assert.deepEqual(parsePath('.'), ['', '']);
    assert.deepEqual(parsePath('..'), ['', '', '']);
  });

  it('unescapes ~1 to . and ~0 to ~', () => {
    assert.deepEqual(parsePath('a~1b'), ['a.b']);
    assert.deepEqual(parsePath('a~0b'), ['a~b']);
    assert.deepEqual(parsePath('x.a~1b.c'), ['x', 'a.b', 'c']);
    assert.deepEqual(parsePath('~1~1'), ['..']);
    assert.deepEqual(parsePath('~0~0'), ['~~']);
  });

  it('unescapes ~1 before ~0, so ~01 is the literal key ~1', () => {
    assert.deepEqual(parsePath('~01'), ['~1']);
    assert.deepEqual(parsePath('~00'), ['~0']);
    assert.deepEqual(parsePath('~001'), ['~01']);
    assert.deepEqual(parsePath('~0~1'), ['~.']);
  });

  it('leaves a lone ~ or an unknown escape as it is', () => {
    assert.deepEqual(parsePath('~'), ['~']);
    assert.deepEqual(parsePath('a~2'), ['a~2']);
    assert.deepEqual(parsePath('a~'), ['a~']);
  });

  it('does not treat special segments specially', () => {
    assert.deepEqual(parsePath('a.*.-.0'), ['a', '*', '-', '0']);
  });
});

describe('formatPath', () => {
  it('joins with dots', () => {
    assert.equal(formatPath(['a', 'b', '0']), 'a.b.0');
    assert.equal(formatPath([]), '');
  });

  it('escapes ~ as ~0 and . as ~1', () => {
    assert.equal(formatPath(['a.b']), 'a~1b');
    assert.equal(formatPath(['a~b']), 'a~0b');
    assert.equal(formatPath(['~1']), '~01');
    assert.equal(formatPath(['~.']), '~0~1');
    assert.equal(formatPath(['x', 'a.b', 'c']), 'x.a~1b.c');
  });

  it('writes empty keys as empty segments', () => {
    assert.equal(formatPath(['a', '', 'b']), 'a..b');
    assert.equal(formatPath(['', '']), '.');
    assert.equal(formatPath(['', 'a']), '.a');
  });

  it('throws for a single empty key, which would otherwise read back as the root', () => {
    assert.throws(() => formatPath(['']), /single empty key/);
  });

  it('round-trips tricky keys through parsePath', () => {
    const cases: string[][] = [
      [],
      ['a'],
      ['a.b'],
      ['a~b'],
      ['~1'],
      ['~0'],
      ['~01'],
      ['~'],
      ['.'],
      ['~.~'],
      ['..', '~~'],
      ['a', '', 'b'],
      ['', ''],
      ['', 'x', ''],
      ['*', '-', '0'],
      ['__proto__', 'constructor', 'prototype'],
      ['ünïcødé', '🙂.🙃', 'a b'],
      ['~2', 'a~'],
    ];
    for (const segs of cases) {
      const path = formatPath(segs);
      assert.deepEqual(parsePath(path), segs, `round-trip of ${JSON.stringify(segs)} via ${JSON.stringify(path)}`);
    }
  });

  it('round-trips canonical paths through formatPath', () => {
    for (const path of ['', 'a', 'a.b', 'a~1b', 'a~0b', '~01', 'a..b', '.', 'x.~0~1.y']) {
      assert.equal(formatPath(parsePath(path)), path);
    }
  });
});

describe('getPath', () => {
  const doc = {
    a: { b: { c: 1 } },
    'a.b': 'dotted',
    'a~b': 'tilde',
    '~1': 'tilde-one',
    '': { '': 'empty-empty', x: 'empty-x' },
    arr: [10, { k: 'v' }, [20, 21]],
    n: null,
    f: false,
    z: 0,
    s: 'str',
    '0': 'zero-key',
  };

  it('returns the root for the empty path', () => {
    assert.equal(getPath(doc, ''), doc);
    assert.equal(getPath(doc, []), doc);
    assert.equal(getPath(5, ''), 5);
    assert.equal(getPath(undefined, ''), undefined);
  });

  it('walks nested objects', () => {
    assert.deepEqual(getPath(doc, 'a'), { b: { c: 1 } });
    assert.equal(getPath(doc, 'a.b.c'), 1);
  });

  it('accepts pre-split segments without unescaping them', () => {
    assert.equal(getPath(doc, ['a', 'b', 'c']), 1);
    assert.equal(getPath(doc, ['a.b']), 'dotted');
    assert.equal(getPath(doc, ['a~1b']), undefined);
  });

  it('reads escaped keys', () => {
    assert.equal(getPath(doc, 'a~1b'), 'dotted');
    assert.equal(getPath(doc, 'a~0b'), 'tilde');
    assert.equal(getPath(doc, '~01'), 'tilde-one');
  });

  it('reads empty keys', () => {
    assert.equal(getPath(doc, '.'), 'empty-empty');
    assert.equal(getPath(doc, '.x'), 'empty-x');
    assert.equal(getPath({ a: { '': { b: 7 } } }, 'a..b'), 7);
  });

  it('returns falsy values that exist', () => {
    assert.equal(getPath(doc, 'n'), null);
    assert.equal(getPath(doc, 'f'), false);
    assert.equal(getPath(doc, 'z'), 0);
  });

  it('returns undefined for missing keys and for paths through non-containers', () => {
    assert.equal(getPath(doc, 'missing'), undefined);
    assert.equal(getPath(doc, 'a.missing.c'), undefined);
    assert.equal(getPath(doc, 'a.b.c.d'), undefined);
    assert.equal(getPath(doc, 'n.x'), undefined);
    assert.equal(getPath(doc, 's.length'), undefined);
    assert.equal(getPath(doc, 's.0'), undefined);
    assert.equal(getPath(undefined, 'a'), undefined);
    assert.equal(getPath(null, 'a'), undefined);
    assert.equal(getPath(42, 'a'), undefined);
  });

  it('indexes arrays with numeric segments, including nested arrays', () => {
    assert.equal(getPath(doc, 'arr.0'), 10);
    assert.equal(getPath(doc, 'arr.1.k'), 'v');
    assert.equal(getPath(doc, 'arr.2.1'), 21);
    assert.equal(getPath([[['deep']]], '0.0.0'), 'deep');
  });

  it('returns undefined for out-of-range and non-canonical indexes', () => {
    assert.equal(getPath(doc, 'arr.3'), undefined);
    assert.equal(getPath(doc, 'arr.99'), undefined);
    assert.equal(getPath(doc, 'arr.-1'), undefined);
    assert.equal(getPath(doc, 'arr.01'), undefined);
    assert.equal(getPath(doc, 'arr.+1'), undefined);
    assert.equal(getPath(doc, 'arr.1.5'), undefined);
    assert.equal(getPath(doc, 'arr.1e0'), undefined);
    assert.equal(getPath(doc, 'arr. 1'), undefined);
    assert.equal(getPath(doc, 'arr.'), undefined);
    assert.equal(getPath(doc, 'arr.99999999999999999999'), undefined);
  });

  it('does not read array properties that are not elements', () => {
    assert.equal(getPath(doc, 'arr.length'), undefined);
    assert.equal(getPath(doc, 'arr.-'), undefined);
    assert.equal(getPath(doc, 'arr.map'), undefined);
  });

  it('treats a numeric segment on an object as a plain key', () => {
    assert.equal(getPath(doc, '0'), 'zero-key');
    assert.equal(getPath({ a: { '1': 'one' } }, 'a.1'), 'one');
  });

  it('maps * over array elements', () => {
    const v = { items: [{ id: 1 }, { id: 2 }, { id: 3 }] };
    assert.deepEqual(getPath(v, 'items.*.id'), [1, 2, 3]);
  });

  it('returns a copy of the elements for a trailing *', () => {
    const items = [1, 2, 3];
    const got = getPath({ items }, 'items.*');
    assert.deepEqual(got, [1, 2, 3]);
    assert.notEqual(got, items);
  });

  it('skips elements where the rest of the path after * is missing', () => {
    const v = { items: [{ id: 1 }, { other: true }, { id: null }, 'scalar', null, { id: 0 }, [5]] };
    assert.deepEqual(getPath(v, 'items.*.id'), [1, null, 0]);
  });

  it('returns an empty array when * finds nothing', () => {
    assert.deepEqual(getPath({ items: [] }, 'items.*'), []);
    assert.deepEqual(getPath({ items: [{}, {}] }, 'items.*.id'), []);
    assert.deepEqual(getPath({ o: {} }, 'o.*'), []);
  });

  it('nests results for nested *', () => {
    // A row without `cells` is skipped; a row whose cells match nothing still yields [].
    const v = { rows: [{ cells: [{ v: 1 }, { v: 2 }] }, { cells: [{ v: 3 }, {}] }, { nocells: 1 }, { cells: [{}] }] };
    assert.deepEqual(getPath(v, 'rows.*.cells.*.v'), [[1, 2], [3], []]);
    assert.deepEqual(getPath([[1, 2], [3]], '*.*'), [[1, 2], [3]]);
    assert.deepEqual(getPath([[1, 2], [3]], '*.0'), [1, 3]);
    assert.deepEqual(getPath([[1, 2], [3]], '*.1'), [2]);
  });

  it('maps * over an object’s values', () => {
    const v = { users: { alice: { age: 30 }, bob: { age: 40 }, carol: {} } };
    assert.deepEqual(getPath(v, 'users.*.age'), [30, 40]);
    assert.deepEqual(getPath({ o: { x: 1, y: 2 } }, 'o.*'), [1, 2]);
  });

  it('treats * at the root as a wildcard too', () => {
    assert.deepEqual(getPath([{ a: 1 }, { a: 2 }], '*.a'), [1, 2]);
  });

  it('returns undefined for * on a non-container', () => {
    assert.equal(getPath({ s: 'x' }, 's.*'), undefined);
    assert.equal(getPath({ n: null }, 'n.*'), undefined);
    assert.equal(getPath({}, 'missing.*'), undefined);
  });

  it('only reads own keys, never inherited ones', () => {
    assert.equal(getPath({}, 'constructor'), undefined);
    assert.equal(getPath({}, 'constructor.prototype'), undefined);
    assert.equal(getPath({}, '__proto__'), undefined);
    assert.equal(getPath({}, 'toString'), undefined);
    assert.equal(getPath({}, 'hasOwnProperty'), undefined);
    assert.equal(getPath(Object.create({ inherited: 1 }), 'inherited'), undefined);
  });

  it('reads guarded names when they are own keys', () => {
    const v = JSON.parse('{"__proto__": {"x": 1}, "constructor": {"prototype": 2}}') as unknown;
    assert.deepEqual(getPath(v, '__proto__'), { x: 1 });
    assert.equal(getPath(v, '__proto__.x'), 1);
    assert.equal(getPath(v, 'constructor.prototype'), 2);
  });

  it('treats non-plain objects as values, not containers', () => {
    const v = { d: new Date(0), b: Buffer.from('ab') };
    assert.equal(getPath(v, 'd.getTime'), undefined);
    assert.equal(getPath(v, 'b.0'), undefined);
    assert.equal(getPath(v, 'b.*'), undefined);
  });

  it('reads objects with a null prototype', () => {
    const o = Object.create(null) as Record<string, unknown>;
    o['k'] = { j: 1 };
    assert.equal(getPath(o, 'k.j'), 1);
  });

  it('does not mutate the value it reads', () => {
    const v = { a: [{ b: 1 }, {}] };
    const before = structuredClone(v);
    getPath(v, 'a.*.b');
    getPath(v, 'x.y.z');
    getPath(v, 'a.5.b');
    assert.deepEqual(v, before);
  });
});

describe('setPath', () => {
  it('returns the value itself for the empty path', () => {
    const root = { a: 1 };
    const v = { b: 2 };
    assert.equal(setPath(root, '', v), v);
    assert.equal(setPath(root, [], 'x'), 'x');
    assert.deepEqual(root, { a: 1 });
  });

  it('sets a key on an existing object in place', () => {
    const root: Record<string, unknown> = { a: 1 };
    const out = setPath(root, 'b', 2);
    assert.equal(out, root);
    assert.deepEqual(root, { a: 1, b: 2 });
  });

  it('overwrites existing values', () => {
    const root = { a: { b: 1 } };
    setPath(root, 'a.b', { c: 3 });
    assert.deepEqual(root, { a: { b: { c: 3 } } });
    setPath(root, 'a', null);
    assert.deepEqual(root, { a: null });
  });

  it('creates missing intermediate objects', () => {
    const root = {};
    setPath(root, 'a.b.c', 1);
    assert.deepEqual(root, { a: { b: { c: 1 } } });
    setPath(root, 'a.x.y', 2);
    assert.deepEqual(root, { a: { b: { c: 1 }, x: { y: 2 } } });
  });

  it('creates a new root object when the root is missing or not a container', () => {
    assert.deepEqual(setPath(undefined, 'a.b', 1), { a: { b: 1 } });
    assert.deepEqual(setPath(null, 'a', 1), { a: 1 });
    assert.deepEqual(setPath('text', 'a', 1), { a: 1 });
    assert.deepEqual(setPath(7, 'a', 1), { a: 1 });
    assert.deepEqual(setPath(new Date(0), 'a', 1), { a: 1 });
  });

  it('replaces non-container intermediate values with objects', () => {
    const root = { a: 'str', b: 5, c: null, d: true, e: new Date(0) };
    setPath(root, 'a.x', 1);
    setPath(root, 'b.x', 2);
    setPath(root, 'c.x', 3);
    setPath(root, 'd.x', 4);
    setPath(root, 'e.x', 5);
    assert.deepEqual(root, { a: { x: 1 }, b: { x: 2 }, c: { x: 3 }, d: { x: 4 }, e: { x: 5 } });
  });

  it('creates an object key for a numeric segment where nothing exists yet (Benthos behaviour)', () => {
    assert.deepEqual(setPath({}, 'a.0.b', 1), { a: { '0': { b: 1 } } });
    assert.deepEqual(setPath(undefined, '0', 'x'), { '0': 'x' });
    assert.deepEqual(setPath({ a: {} }, 'a.1', 'x'), { a: { '1': 'x' } });
  });

  it('sets keys containing escaped characters and empty keys', () => {
    const root = {};
    setPath(root, 'a~1b', 1);
    setPath(root, 'a~0b', 2);
    setPath(root, '~01', 3);
    setPath(root, 'x..y', 4);
    setPath(root, ['p.q', 'r'], 5);
    assert.deepEqual(root, { 'a.b': 1, 'a~b': 2, '~1': 3, x: { '': { y: 4 } }, 'p.q': { r: 5 } });
    assert.equal(getPath(root, 'x..y'), 4);
    assert.equal(getPath(root, 'p~1q.r'), 5);
  });

  it('sets an existing array index in place', () => {
    const arr = [1, 2, 3];
    const root = { arr };
    setPath(root, 'arr.1', 'two');
    assert.equal(root.arr, arr);
    assert.deepEqual(root, { arr: [1, 'two', 3] });
  });

  it('sets deep into existing nested arrays', () => {
    const root = { m: [[{ v: 1 }, { v: 2 }], [{ v: 3 }]] };
    setPath(root, 'm.0.1.v', 20);
    setPath(root, 'm.1.0.w', 'new');
    assert.deepEqual(root, { m: [[{ v: 1 }, { v: 20 }], [{ v: 3, w: 'new' }]] });
  });

  it('replaces a non-container array element on the way with an object', () => {
    const root = { a: [1, null, 'x'] };
    setPath(root, 'a.0.k', 'v');
    setPath(root, 'a.1.k', 'w');
    assert.deepEqual(root, { a: [{ k: 'v' }, { k: 'w' }, 'x'] });
  });

  it('sets on an array root in place', () => {
    const root = [1, 2];
    assert.equal(setPath(root, '0', 9), root);
    assert.deepEqual(root, [9, 2]);
  });

  it('throws, naming the path, for an index beyond the end of an array', () => {
    const root = { a: { list: [1, 2] } };
    assert.throws(
      () => setPath(root, 'a.list.2', 3),
      (err: unknown) => {
        assert.ok(err instanceof Error);
        assert.match(err.message, /"a\.list\.2"/);
        assert.match(err.message, /beyond the end/);
        assert.match(err.message, /length 2/);
        return true;
      },
    );
    assert.throws(() => setPath(root, 'a.list.10.x', 3), /"a\.list\.10".*beyond the end/);
    assert.throws(() => setPath([], '0', 1), /"0".*beyond the end/);
    assert.deepEqual(root, { a: { list: [1, 2] } });
  });

  it('throws for a non-index segment on an existing array instead of discarding it', () => {
    const root = { list: [1, 2] };
    assert.throws(() => setPath(root, 'list.name', 1), /"list\.name".*not an index/);
    assert.throws(() => setPath(root, 'list.01', 1), /"list\.01".*not an index/);
    assert.throws(() => setPath(root, 'list.-1', 1), /not an index/);
    assert.throws(() => setPath(root, 'list.__proto__', 1), /not an index/);
    assert.deepEqual(root, { list: [1, 2] });
  });

  it('appends with -', () => {
    const arr = [1];
    const root = { arr };
    setPath(root, 'arr.-', 2);
    setPath(root, 'arr.-', [3]);
    assert.equal(root.arr, arr);
    assert.deepEqual(root, { arr: [1, 2, [3]] });
  });

  it('appends to an array root with -', () => {
    const root: unknown[] = [];
    assert.equal(setPath(root, '-', 'a'), root);
    setPath(root, '-', 'b');
    assert.deepEqual(root, ['a', 'b']);
  });

  it('appends a new object with - when more segments follow', () => {
    const root = { arr: [{ id: 1 }] };
    setPath(root, 'arr.-.id', 2);
    setPath(root, 'arr.-.x.y', 3);
    assert.deepEqual(root, { arr: [{ id: 1 }, { id: 2 }, { x: { y: 3 } }] });
  });

  it('appends into nested arrays with -', () => {
    const root = { m: [[1], [2]] };
    setPath(root, 'm.1.-', 3);
    setPath(root, 'm.-', []);
    setPath(root, 'm.2.-', 4);
    assert.deepEqual(root, { m: [[1], [2, 3], [4]] });
  });

  it('treats - as a plain key when there is no array', () => {
    assert.deepEqual(setPath({}, 'a.-', 1), { a: { '-': 1 } });
    assert.deepEqual(setPath({ a: { '-': 0 } }, 'a.-', 1), { a: { '-': 1 } });
    assert.deepEqual(setPath(undefined, '-.b', 1), { '-': { b: 1 } });
  });

  it('rejects * since a wildcard has no single place to write', () => {
    const root = { arr: [{}, {}] };
    assert.throws(() => setPath(root, 'arr.*.x', 1), /"arr\.\*\.x".*wildcard/);
    assert.throws(() => setPath({}, '*', 1), /wildcard/);
    assert.throws(() => setPath({}, 'a.*', 1), /wildcard/);
    assert.deepEqual(root, { arr: [{}, {}] });
  });

  it('escapes the path it names in errors', () => {
    assert.throws(() => setPath({ 'a.b': [] }, ['a.b', '3'], 1), /"a~1b\.3"/);
    assert.throws(() => setPath({ '': [] }, ['', '3'], 1), /"\.3"/);
  });

  it('leaves sibling data untouched', () => {
    const root = { keep: { me: [1, 2] }, a: { b: 1, c: 2 } };
    setPath(root, 'a.b', 10);
    assert.deepEqual(root, { keep: { me: [1, 2] }, a: { b: 10, c: 2 } });
  });

  it('writes into objects with a null prototype', () => {
    const o = Object.create(null) as Record<string, unknown>;
    setPath(o, 'a.b', 1);
    assert.deepEqual(getPath(o, 'a'), { b: 1 });
    assert.equal(Object.getPrototypeOf(o), null);
  });
});

describe('deletePath', () => {
  it('removes a key and returns the root', () => {
    const root = { a: 1, b: 2 };
    assert.equal(deletePath(root, 'a'), root);
    assert.deepEqual(root, { b: 2 });
  });

  it('removes a nested key', () => {
    const root = { a: { b: { c: 1, d: 2 } } };
    deletePath(root, 'a.b.c');
    assert.deepEqual(root, { a: { b: { d: 2 } } });
  });

  it('removes keys with escapes and empty keys', () => {
    const root = { 'a.b': 1, 'a~b': 2, '': { '': 3, x: 4 }, keep: 0 };
    deletePath(root, 'a~1b');
    deletePath(root, 'a~0b');
    deletePath(root, '.');
    assert.deepEqual(root, { '': { x: 4 }, keep: 0 });
    deletePath(root, ['']);
    assert.deepEqual(root, { keep: 0 });
  });

  it('splices array elements so later elements shift down', () => {
    const arr = ['a', 'b', 'c'];
    const root = { arr };
    deletePath(root, 'arr.1');
    assert.equal(root.arr, arr);
    assert.deepEqual(root, { arr: ['a', 'c'] });
    assert.equal(getPath(root, 'arr.1'), 'c');
    deletePath(root, 'arr.0');
    deletePath(root, 'arr.0');
    assert.deepEqual(root, { arr: [] });
  });

  it('deletes inside nested arrays', () => {
    const root = { m: [[1, 2, 3], [{ k: 1, j: 2 }]] };
    deletePath(root, 'm.0.2');
    deletePath(root, 'm.1.0.k');
    assert.deepEqual(root, { m: [[1, 2], [{ j: 2 }]] });
  });

  it('deletes from an array root', () => {
    const root = [1, 2, 3];
    assert.equal(deletePath(root, '0'), root);
    assert.deepEqual(root, [2, 3]);
  });

  it('is a no-op for missing paths', () => {
    const root = { a: { b: 1 }, arr: [1, 2], s: 'x', n: null };
    const before = structuredClone(root);
    deletePath(root, 'missing');
    deletePath(root, 'a.missing');
    deletePath(root, 'missing.deep.path');
    deletePath(root, 'arr.2');
    deletePath(root, 'arr.99');
    deletePath(root, 'arr.-1');
    deletePath(root, 'arr.01');
    deletePath(root, 'arr.-');
    deletePath(root, 'arr.name');
    deletePath(root, 'arr.length');
    deletePath(root, 's.0');
    deletePath(root, 'n.x');
    deletePath(root, 'a.b.c');
    assert.deepEqual(root, before);
    assert.equal(deletePath(undefined, 'a'), undefined);
    assert.equal(deletePath(5, 'a'), 5);
  });

  it('deletes a numeric key on an object', () => {
    const root = { o: { '0': 'x', '1': 'y' } };
    deletePath(root, 'o.0');
    assert.deepEqual(root, { o: { '1': 'y' } });
  });

  it('returns undefined for the empty path (the whole value is removed)', () => {
    assert.equal(deletePath({ a: 1 }, ''), undefined);
    assert.equal(deletePath({ a: 1 }, []), undefined);
  });

  it('rejects *', () => {
    const root = { arr: [{ x: 1 }] };
    assert.throws(() => deletePath(root, 'arr.*.x'), /wildcard/);
    assert.deepEqual(root, { arr: [{ x: 1 }] });
  });

  it('does not delete inherited properties', () => {
    deletePath({}, 'toString');
    deletePath({}, 'constructor');
    deletePath({}, '__proto__');
    deletePath({}, 'constructor.prototype.toString');
    assert.equal(typeof Object.prototype.toString, 'function');
    assert.equal({}.constructor, Object);
    assert.equal(Object.getPrototypeOf({}), Object.prototype);
  });
});

describe('prototype pollution', () => {
  it('writes __proto__ as a plain own key, never replacing the prototype', () => {
    const root: Record<string, unknown> = {};
    setPath(root, '__proto__', { polluted: true });
    assert.equal(Object.getPrototypeOf(root), Object.prototype);
    assert.ok(Object.hasOwn(root, '__proto__'));
    assert.deepEqual(getPath(root, '__proto__'), { polluted: true });
    assert.equal(root['polluted'], undefined);
    assert.equal(JSON.stringify(root), '{"__proto__":{"polluted":true}}');
    assertPrototypesClean();
  });

  it('does not reach Object.prototype through __proto__.x', () => {
    const root = setPath({}, '__proto__.polluted', 'yes') as Record<string, unknown>;
    assertPrototypesClean();
    assert.equal(Object.getPrototypeOf(root), Object.prototype);
    assert.deepEqual(getPath(root, '__proto__'), { polluted: 'yes' });
    assert.equal(getPath(root, '__proto__.polluted'), 'yes');
  });

  it('does not reach Object.prototype through constructor.prototype.x', () => {
    const root = setPath({}, 'constructor.prototype.polluted', 'yes') as Record<string, unknown>;
    assertPrototypesClean();
    assert.equal(Object.prototype.constructor, Object);
    assert.ok(Object.hasOwn(root, 'constructor'));
    assert.deepEqual(getPath(root, 'constructor'), { prototype: { polluted: 'yes' } });
    assert.equal(getPath(root, 'constructor.prototype.polluted'), 'yes');
  });

  it('guards objects it creates on the way, at any depth', () => {
    const root = setPath(undefined, 'a.b.__proto__.polluted', 1);
    assert.deepEqual(JSON.parse(JSON.stringify(root)), JSON.parse('{"a":{"b":{"__proto__":{"polluted":1}}}}'));
    assertPrototypesClean();
    const b = getPath(root, 'a.b') as object;
    assert.equal(Object.getPrototypeOf(b), Object.prototype);
  });

  it('guards elements appended to arrays', () => {
    const root = { arr: [] as unknown[] };
    setPath(root, 'arr.-.__proto__.polluted', 1);
    setPath(root, 'arr.0.constructor.prototype.polluted', 1);
    assertPrototypesClean();
    assert.equal(Object.getPrototypeOf(root.arr[0]), Object.prototype);
    assert.ok(Object.hasOwn(root.arr[0] as object, '__proto__'));
    assert.ok(Object.hasOwn(root.arr[0] as object, 'constructor'));
  });

  it('writes prototype as a plain key', () => {
    const root = setPath({}, 'prototype.polluted', 1);
    assert.deepEqual(root, { prototype: { polluted: 1 } });
    assertPrototypesClean();
  });

  it('does not pollute when own guarded keys already exist (e.g. from JSON.parse)', () => {
    const root = JSON.parse('{"__proto__": {"a": 1}}') as Record<string, unknown>;
    setPath(root, '__proto__.polluted', 1);
    setPath(root, '__proto__', { replaced: true });
    assertPrototypesClean();
    assert.equal(Object.getPrototypeOf(root), Object.prototype);
    assert.deepEqual(getPath(root, '__proto__'), { replaced: true });
  });

  it('deletes own guarded keys without touching prototypes', () => {
    const root = setPath({}, '__proto__.x', 1) as Record<string, unknown>;
    setPath(root, 'constructor', 2);
    deletePath(root, '__proto__');
    deletePath(root, 'constructor');
    assert.deepEqual(Object.keys(root), []);
    assert.equal(Object.getPrototypeOf(root), Object.prototype);
    assert.equal(root.constructor, Object);
  });

  it('guards pre-split segment arrays too', () => {
    setPath({}, ['__proto__', 'polluted'], 1);
    setPath({}, ['constructor', 'prototype', 'polluted'], 1);
    assertPrototypesClean();
  });
});
