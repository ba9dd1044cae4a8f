import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactUrl, scrub } from './redact.js';

test('redactUrl: the password goes, user, host, port and vhost stay', () => {
  assert.equal(redactUrl('amqp://app:s3cret@rabbit:5672/prod'), 'amqp://app:xxxxx@rabbit:5672/prod');
  assert.equal(redactUrl('amqps://app:p%40ss@rabbit/'), 'amqps://app:xxxxx@rabbit/');
  assert.equal(redactUrl('amqp://app@rabbit:5672/'), 'amqp://app@rabbit:5672/');
  assert.equal(redactUrl('amqp://rabbit:5672/'), 'amqp://rabbit:5672/');
  assert.equal(redactUrl('AMQP://u:p@h/?heartbeat=5'), 'AMQP://u:xxxxx@h/?heartbeat=5');
});

test('scrub: URLs and their passwords (as written or decoded) leave any text', () => {
  const urls = ['amqp://app:p%40ss@rabbit:5672/', 'amqp://ops:hunter2@backup:5672/'];
  const text = 'cannot reach amqp://app:p%40ss@rabbit:5672/ (password p@ss), then ops:hunter2 refused';
  const out = scrub(text, urls);
  assert.doesNotMatch(out, /p%40ss|p@ss|hunter2/);
  assert.match(out, /amqp:\/\/app:xxxxx@rabbit:5672\//);
  assert.equal(scrub('nothing secret', ['amqp://h/']), 'nothing secret');
});
