/**
 * `auth.nkey_file` and `auth.nkey` on the nats-server `scripts/services.sh up` starts with one NKey
 * user and nothing else (SVC_NATS_NKEY_URL, its seed in SVC_NATS_NKEY_SEED_FILE): the nats output
 * and input connect with the seed (from the file, or as text) and carry a message; no credentials,
 * or another user's seed, are refused by the server, and no seed is ever in the error. The JWT
 * fields are refused at lint, saying what works.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { nkeys } from 'nats';
import { Message, registry, type Input, type Output, type Transaction } from '@svc/engine';
import { buildComponent, lintValue, serviceAddress, testContext } from '@svc/engine/testing';
import './index.js';
import { unique } from './test-support.js';

const URL_ = serviceAddress('SVC_NATS_NKEY_URL');
const SEED_FILE = serviceAddress('SVC_NATS_NKEY_SEED_FILE');

function build<T>(kind: 'input' | 'output', type: string, config: Record<string, unknown>): Promise<T> {
  return buildComponent<T>(kind, type, { urls: [URL_], ...config }, testContext({ type, path: `root.${kind}` }));
}

describe('nats auth with an NKey user (real nats-server)', () => {
  it('the output signs in with auth.nkey_file, the input with auth.nkey: a message goes through', async () => {
    const subject = unique('nkey');
    const input = await build<Input>('input', 'nats', { subject, auth: { nkey: readFileSync(SEED_FILE, 'utf8').trim() } });
    const output = await build<Output>('output', 'nats', { subject, auth: { nkey_file: SEED_FILE } });
    try {
      await input.connect!();
      await output.connect!();
      await output.write([new Message('signed')]);
      const t = (await input.read()) as Transaction;
      assert.equal(t.batch[0]!.content.toString(), 'signed');
      await t.ack();
    } finally {
      await Promise.all([input.close?.(), output.close?.()]);
    }
  });

  it('no credentials, or another NKey user, are refused by the server; the error holds no seed', async () => {
    const other = new TextDecoder().decode(nkeys.createUser().getSeed());
    const anonymous = await build<Output>('output', 'nats', { subject: 'x', max_reconnects: 0 });
    const stranger = await build<Output>('output', 'nats', { subject: 'x', max_reconnects: 0, auth: { nkey: other } });
    try {
      await assert.rejects(anonymous.connect!(), /Authorization Violation|AUTHORIZATION_VIOLATION/i);
      const err = await stranger.connect!().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      assert.match(String(err?.message), /Authorization Violation|AUTHORIZATION_VIOLATION/i);
      assert.ok(!String(err?.message).includes(other.slice(1, 20)), err?.message);
    } finally {
      await Promise.all([anonymous.close?.(), stranger.close?.()]);
    }
  });

  it('lint: the JWT fields are refused saying what works; nkey_file and nkey together are refused', () => {
    const spec = registry().get('output', 'nats')!.spec.config;
    for (const field of ['user_jwt', 'user_nkey_seed', 'user_credentials_file'])
      assert.match(
        lintValue(spec, { urls: [URL_], subject: 'x', auth: { [field]: 'x' } }).join(),
        new RegExp(`auth.${field} is not implemented: use .*auth.nkey_file`),
      );
    assert.match(lintValue(spec, { urls: [URL_], subject: 'x', auth: { nkey: 'S', nkey_file: '/x' } }).join(), /set one of auth.nkey_file and auth.nkey/);
    assert.deepEqual(lintValue(spec, { urls: [URL_], subject: 'x', auth: { nkey_file: '/x' } }), []);
  });
});
