/** The password pool answers bcrypt comparisons from its own threads, and fails closed. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isMainThread } from 'node:worker_threads';
import bcrypt from 'bcryptjs';
import { bcryptMatches } from './password-pool.js';

describe('password pool', () => {
  it('matches the right password only; a value that is not a bcrypt hash matches nothing', async () => {
    assert.ok(isMainThread);
    const hash = bcrypt.hashSync('s3cret', 4);
    assert.deepEqual(await Promise.all([bcryptMatches('s3cret', hash), bcryptMatches('wrong', hash), bcryptMatches('s3cret', 'plain-text')]), [
      true,
      false,
      false,
    ]);
  });
});
