/**
 * Head samplers: a ratio sampler samples its fraction whether its decisions are taken one by one
 * (`sample`) or a run at a time (`skip`, what an input uses), and the fixed ones say so ahead.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALWAYS, NEVER, rateLimitingSampler, ratioSampler } from './sampler.js';

/** Sampled roots out of `total` decisions, taken as an input takes them: skips, then one sample(). */
function sampledBySkipping(ratio: number, total: number, chunk: number): number {
  const s = ratioSampler(ratio);
  let decided = 0;
  let sampled = 0;
  while (decided < total) {
    const k = s.skip(Math.min(chunk, total - decided));
    decided += k;
    if (decided >= total) break;
    if (k < chunk) {
      if (s.sample()) sampled++;
      decided++;
    }
  }
  return sampled;
}

describe('head samplers', () => {
  it('a ratio sampler samples its fraction, one decision at a time', () => {
    const s = ratioSampler(0.1);
    let sampled = 0;
    for (let i = 0; i < 200_000; i++) if (s.sample()) sampled++;
    // 0.1 of 200,000 is 20,000, with a standard deviation of about 134.
    assert.ok(Math.abs(sampled - 20_000) < 1_000, `sampled ${sampled} of 200000 at 0.1`);
  });

  it('a ratio sampler samples the same fraction when runs are skipped at once', () => {
    for (const chunk of [1, 7, 100, 10_000]) {
      const sampled = sampledBySkipping(0.05, 400_000, chunk);
      // 0.05 of 400,000 is 20,000 (standard deviation about 138).
      assert.ok(Math.abs(sampled - 20_000) < 1_000, `sampled ${sampled} of 400000 at 0.05 skipping up to ${chunk}`);
    }
  });

  it('skip never passes a root that is to be sampled', () => {
    const s = ratioSampler(0.5);
    for (let i = 0; i < 1_000; i++) {
      const k = s.skip(10);
      assert.ok(k >= 0 && k <= 10);
      if (k < 10) assert.equal(s.sample(), true, 'the root after a short skip is sampled');
    }
  });

  it('never and always decide ahead; a rate limit decides one at a time', () => {
    assert.equal(NEVER.skip(100), 100);
    assert.equal(ALWAYS.skip(100), 0);
    assert.equal(ratioSampler(0).skip(5), 5);
    assert.equal(ratioSampler(1).skip(5), 0);
    const limited = rateLimitingSampler(10);
    assert.equal(limited.skip(100), 0);
    let sampled = 0;
    for (let i = 0; i < 100; i++) if (limited.sample()) sampled++;
    assert.equal(sampled, 10, 'a full bucket of one second: 10 of 100 at once');
  });
});
