import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Message, registry } from '@svc/engine';
import './index.js';
import { buildOutput, lint } from './test-context.js';

test('reject: the config is a string; every write rejects with that text (a nack)', async () => {
  const reg = registry().get('output', 'reject')!;
  assert.equal(reg.spec.config.kind, 'string');
  assert.deepEqual(lint(reg.spec.config, 'no thanks'), []);
  assert.match(lint(reg.spec.config, undefined).join(), /required/);
  const out = await buildOutput('reject', 'this message is not wanted here');
  for (let i = 0; i < 2; i++) {
    await assert.rejects(out.write([new Message('x')]), (err: Error) => {
      assert.ok(err instanceof Error);
      assert.equal(err.message, 'this message is not wanted here');
      assert.equal((err as Error & { code?: string }).code, 'E_REJECTED');
      return true;
    });
  }
});
