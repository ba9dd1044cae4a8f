/** The specs of the amqp_0_9 input and output: defaults as Benthos has them, lint, and examples that lint. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registry } from '@svc/engine';
import { lintValue, withDefaults } from '@svc/engine/testing';
import { AMQP_PLUGIN } from './test-support.js';

const ENGINE = fileURLToPath(new URL('../../../engine/dist/cli/main.js', import.meta.url));
const input = registry().get('input', 'amqp_0_9')!;
const output = registry().get('output', 'amqp_0_9')!;

test('amqp_0_9 input: Benthos defaults, and lint catches what cannot work', () => {
  const conf = withDefaults(input.spec.config, { urls: ['amqp://127.0.0.1/'], queue: 'q' }) as Record<string, unknown>;
  assert.equal(conf.prefetch_count, 10);
  assert.equal(conf.prefetch_size, 0);
  assert.equal(conf.auto_ack, false);
  assert.equal(conf.consumer_tag, '');
  assert.deepEqual(conf.queue_declare, { enabled: false, durable: true, auto_delete: false });
  assert.deepEqual(conf.bindings_declare, []);
  assert.deepEqual(conf.nack_reject_patterns, []);
  assert.deepEqual(lintValue(input.spec.config, { urls: ['amqp://127.0.0.1/'], queue: 'q' }), []);
  assert.deepEqual(lintValue(input.spec.config, {}), ['config.urls: required', 'config.queue: required']);
  const bad = lintValue(input.spec.config, { urls: [' , '], queue: '', prefetch_count: -1, nack_reject_patterns: ['(unclosed'] });
  assert.equal(bad.length, 4, bad.join('\n'));
  assert.deepEqual(lintValue(input.spec.config, { urls: ['http://u:pw@h/'], queue: 'q' }), [
    'config.urls: "http://u:xxxxx@h/" is not an amqp:// or amqps:// URL',
  ]);
  assert.match(bad.join('\n'), /urls must list at least one URL/);
  assert.match(bad.join('\n'), /queue must name/);
  assert.match(bad.join('\n'), /prefetch_count must be between/);
  assert.match(bad.join('\n'), /invalid RE2 regex "\(unclosed"/);
});

test('amqp_0_9 output: Benthos defaults, interpolated fields, and lint', () => {
  const conf = withDefaults(output.spec.config, { urls: ['amqp://127.0.0.1/'], exchange: 'ex' }) as Record<string, unknown>;
  assert.equal(conf.content_type, 'application/octet-stream');
  assert.equal(conf.max_in_flight, 64);
  assert.equal(conf.persistent, false);
  assert.equal(conf.mandatory, false);
  assert.equal(conf.timeout, '');
  assert.deepEqual(conf.exchange_declare, { enabled: false, type: 'direct', durable: true });
  assert.deepEqual(conf.metadata, { exclude_prefixes: [] });
  const fields = output.spec.config.fields!;
  for (const k of [
    'exchange',
    'key',
    'type',
    'content_type',
    'content_encoding',
    'correlation_id',
    'reply_to',
    'expiration',
    'message_id',
    'user_id',
    'app_id',
    'priority',
  ]) {
    assert.equal(fields[k]!.isInterpolated, true, `${k} is interpolated`);
  }
  // An empty exchange is the default exchange: allowed.
  assert.deepEqual(lintValue(output.spec.config, { urls: ['amqp://127.0.0.1/'], exchange: '' }), []);
  assert.deepEqual(lintValue(output.spec.config, { urls: [] }), [
    'config.urls: urls must list at least one URL, e.g. amqp://guest:guest@127.0.0.1:5672/',
    'config.exchange: required',
  ]);
  const bad = lintValue(output.spec.config, { urls: ['amqp://h/'], exchange: 'x', exchange_declare: { type: 'round' }, max_in_flight: 0, timeout: 'soon' });
  assert.equal(bad.length, 3, bad.join('\n'));
});

test('the examples of both components lint with `engine lint`', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-amqp-examples-'));
  try {
    const examples = [...(input.spec.examples ?? []), ...(output.spec.examples ?? [])];
    assert.ok(examples.length >= 4);
    const files = examples.map((yaml, i) => {
      const p = join(dir, `example-${i}.yaml`);
      // Each example is one half of a stream: complete it with a trivial other half.
      writeFileSync(p, yaml.includes('input:') ? `${yaml}\noutput:\n  drop: {}\n` : `input:\n  generate: { mapping: 'root = "x"', count: 1 }\n${yaml}\n`);
      return p;
    });
    const r = spawnSync(process.execPath, [ENGINE, 'lint', '--plugin', AMQP_PLUGIN, ...files], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, RABBITMQ_PASSWORD: 'set-by-test' },
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
