import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonNumber } from '../message/json-number.js';
import { Message } from '../message/message.js';
import { decodeBatch, encodeBatch } from './batch-codec.js';

describe('batch codec', () => {
  it('metadata numbers that keep their text cross threads as they are (structured clone would make them objects)', () => {
    const m = new Message('{"id":1234567890123456789}');
    const id = (m.json() as { id: JsonNumber }).id;
    m.setMeta('id', id);
    m.setMeta('ids', [id, 5, 'x']);
    m.setMeta('plain', 'text');
    const crossed = structuredClone(encodeBatch([m])); // what postMessage does to a task
    const [back] = decodeBatch(crossed);
    const got = back!.getMeta('id');
    assert.ok(got instanceof JsonNumber);
    assert.equal(got.text, '1234567890123456789');
    assert.equal(back!.getMetaString('ids'), '[1234567890123456789,5,"x"]');
    assert.equal(back!.getMeta('plain'), 'text');
    assert.equal(back!.text(), '{"id":1234567890123456789}');
  });
});
