import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contextKey } from './context.js';
import { Message, batchBytes, copyBatch } from './message.js';
import { ResultStore, answerMessage, isAnswered, storeResult } from './result-store.js';
import { joinAcks, splitAck } from './transaction.js';

describe('Message', () => {
  it('parses JSON once and caches it; setJson re-serialises lazily', () => {
    const m = new Message('{"a":1}');
    const v = m.json() as { a: number };
    assert.equal(v.a, 1);
    assert.equal(m.json(), v, 'same object: parsed once');
    m.setJson({ b: [1, 2] });
    assert.equal(m.text(), '{"b":[1,2]}');
    assert.equal(m.byteLength, 11);
    assert.throws(() => new Message('not json').json(), SyntaxError);
  });

  it('copies share content and copy metadata on first write', () => {
    const m = new Message('x', { k: 'v' });
    const c = m.copy();
    c.setMeta('k', 'changed');
    c.setMeta('n', 1);
    assert.equal(m.getMeta('k'), 'v');
    assert.equal(m.getMeta('n'), undefined);
    m.setMeta('k', 'mine');
    assert.equal(c.getMeta('k'), 'changed');
    assert.equal(c.content, m.content, 'content buffer shared');
  });

  it('copies of a message with only a structured view keep it, independently', () => {
    const m = new Message();
    m.setJson({ a: { b: 1 } });
    const c = m.copy();
    (c.json() as { a: { b: number } }).a.b = 2;
    assert.equal(m.text(), '{"a":{"b":1}}');
    assert.equal(c.text(), '{"a":{"b":2}}');
  });

  it('copies share ctx, so a value or a result set on a copy reaches the original', () => {
    const REQUEST = contextKey<number>('test.message.request');
    const m = new Message('req');
    const c = m.copy();
    assert.equal(m.hasCtx(), false, 'a copy made before any ctx gets its own');
    answerMessage(c, { status: 201 });
    assert.equal(isAnswered(c), true);
    assert.equal(isAnswered(m), false);
    const m2 = new Message('req');
    const store = new ResultStore<{ status: number }>([m2]);
    m2.ctx.set(REQUEST, 1);
    const c2 = m2.copy();
    assert.equal(c2.ctx.get(REQUEST), 1);
    storeResult(c2, { status: 200 });
    assert.equal(isAnswered(m2), false, 'stored, not answered: the message goes on');
    answerMessage(c2, { status: 429 });
    assert.equal(isAnswered(m2), true);
    assert.deepEqual(store.results(), [{ status: 429 }], 'the last result stored wins');
  });

  it('ctx keys are typed and distinct even with equal names; a crossing name is unique', () => {
    const a = contextKey<string>('test.message.same');
    const b = contextKey<string>('test.message.same');
    const m = new Message('x');
    m.ctx.set(a, 'A');
    assert.equal(m.ctx.get(a), 'A');
    assert.equal(m.ctx.get(b), undefined);
    assert.equal(m.ctx.has(b), false);
    m.ctx.delete(a);
    assert.equal(m.ctx.has(a), false);
    contextKey<string>('test.message.crossing', { crossesThreads: true });
    assert.throws(() => contextKey<string>('test.message.crossing', { crossesThreads: true }), /exists already/);
  });

  it('lazy slices read, copy, measure and serialise like plain contents', () => {
    const buf = Buffer.from('hello world');
    const m = Message.slice(buf, 6, 11);
    assert.equal(m.byteLength, 5);
    const target = Buffer.alloc(7, '.');
    assert.equal(m.copyContentTo(target, 1), 5);
    assert.equal(target.toString(), '.world.');
    const c = m.copy();
    assert.equal(c.text(), 'world');
    assert.equal(m.text(), 'world');
    m.content = Buffer.from('new');
    assert.equal(m.byteLength, 3);
    assert.equal(c.text(), 'world');
  });

  it('metadata: strings and structured values', () => {
    const m = new Message('', { s: 'a', n: 3, o: { x: [1] } });
    assert.equal(m.getMetaString('s'), 'a');
    assert.equal(m.getMetaString('n'), '3');
    assert.equal(m.getMetaString('o'), '{"x":[1]}');
    assert.equal(m.getMetaString('missing'), '');
    m.deleteMeta('s');
    assert.deepEqual(m.metaObject(), { n: 3, o: { x: [1] } });
    m.clearMeta();
    assert.equal(m.hasMeta(), false);
  });

  it('errors are flags with text', () => {
    const m = new Message('x');
    m.setError(new Error('bad thing'));
    assert.equal(m.error, 'bad thing');
    assert.equal(m.copy().error, 'bad thing');
  });

  it('batch helpers', () => {
    const b = [new Message('ab'), new Message('cde')];
    assert.equal(batchBytes(b), 5);
    const c = copyBatch(b);
    assert.notEqual(c[0], b[0]);
    assert.equal(c[1]!.text(), 'cde');
  });
});

describe('acks', () => {
  it('splitAck fires once after every part, with the first error', () => {
    const calls: Array<Error | undefined> = [];
    const ack = splitAck((e) => calls.push(e), 3);
    ack();
    ack(new Error('first'));
    assert.equal(calls.length, 0);
    ack(new Error('second'));
    assert.deepEqual(
      calls.map((e) => e?.message),
      ['first'],
    );
  });

  it('joinAcks calls every ack with the same outcome', () => {
    const seen: string[] = [];
    joinAcks([(e) => seen.push(`a:${e?.message}`), (e) => seen.push(`b:${e?.message}`)])(new Error('x'));
    assert.deepEqual(seen, ['a:x', 'b:x']);
  });
});
