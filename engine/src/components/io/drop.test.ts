import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Message, registry } from '@svc/engine';
import './index.js';
import { buildOutput, lint } from './test-context.js';

test('drop: an empty object config; writes resolve at once', async () => {
  const reg = registry().get('output', 'drop')!;
  assert.deepEqual(lint(reg.spec.config, {}), []);
  const out = await buildOutput('drop', {});
  await out.write([new Message('gone'), new Message('too')]);
  await out.write([]);
});
