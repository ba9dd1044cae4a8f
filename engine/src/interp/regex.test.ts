/**
 * User patterns run on RE2 (linear time): a pattern that backtracks catastrophically in a
 * backtracking engine must still finish. On 50k characters a backtracking engine would need
 * more steps than can ever run, so finishing with the right answer is the proof; the mapping
 * runs on a worker so that a regression fails (at the guard) instead of freezing the run.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { Message } from '../message/message.js';
import { compileMapping } from './index.js';

/** A guard, not a measurement: only an engine that backtracks comes anywhere near it. */
const GUARD_MS = 120_000;

/** The mapping's output text for the document, computed on a worker thread. */
function applyOnWorker(mapping: string, doc: unknown): Promise<string> {
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    Promise.all([import(workerData.index), import(workerData.message)]).then(([{ compileMapping }, { Message }]) => {
      const msg = new Message(JSON.stringify(workerData.doc));
      if (!compileMapping(workerData.mapping).apply(msg, { batch: [msg], index: 0 })) throw new Error('the mapping deleted the message');
      parentPort.postMessage(msg.text());
    });
  `;
  const workerData = { mapping, doc, index: new URL('./index.js', import.meta.url).href, message: new URL('../message/message.js', import.meta.url).href };
  const w = new Worker(code, { eval: true, workerData });
  return new Promise<string>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error(`no answer after ${GUARD_MS} ms: the pattern backtracks`)), GUARD_MS);
    w.once('message', (text: string) => resolve(text));
    w.once('error', reject);
    w.once('exit', (code) => reject(new Error(`the worker exited (${code}) without an answer`)));
    const done = () => {
      clearTimeout(guard);
      void w.terminate();
    };
    w.once('message', done).once('error', done).once('exit', done);
  });
}

describe('regular expressions cannot hang the process', () => {
  const input = 'a'.repeat(50_000) + 'b';

  for (const [name, mapping, expected] of [
    ['re_match with a constant pattern', 'root = this.s.re_match("(a+)+$")', 'false'],
    ['re_match with a pattern from the message', 'root = this.s.re_match(this.p)', 'false'],
    ['re_replace_all', 'root = this.s.re_replace_all("(a|aa)+$", "x").length()', String(input.length)],
    ['re_find_all', 'root = this.s.re_find_all("(a*)*c").length()', '0'],
  ] as const) {
    it(`${name} on 50k "a" + "b" finishes with the right answer`, async () => {
      assert.equal(await applyOnWorker(mapping, { s: input, p: '(a+)+$' }), expected);
    });
  }

  it('uses Go (RE2) syntax: named groups and no backreferences', () => {
    const msg = new Message(JSON.stringify({ s: '2024-05' }));
    assert.ok(compileMapping('root = this.s.re_replace_all("(?P<y>\\\\d{4})-(?P<m>\\\\d{2})", "$m/$y")').apply(msg, { batch: [msg], index: 0 }));
    assert.equal(msg.text(), '05/2024');
    assert.throws(() => compileMapping('root = this.s.re_match("(a)\\\\1")'), /error parsing regexp/);
  });
});
