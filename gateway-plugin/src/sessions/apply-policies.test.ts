import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPolicies } from './apply-policies.js';
import type { Policy, SessionState } from './session.js';

const policies: Record<string, Policy> = {
  slow: { id: 'slow', rate: 100, per: 60, quota_max: 1000, access_rights: { a: { api_id: 'a', versions: ['Default'] } } },
  // 10 per second beats 100 per minute even though its rate and its per are both lower.
  fast: { id: 'fast', rate: 10, per: 1, quota_max: 500, access_rights: { a: { api_id: 'a', versions: ['Default'] }, b: { api_id: 'b', versions: ['v2'] } } },
  urls: { id: 'urls', rate: 1, per: 1, access_rights: { a: { api_id: 'a', allowed_urls: [{ url: '/x', methods: ['GET'] }] } } },
  urls2: {
    id: 'urls2',
    rate: 1,
    per: 1,
    access_rights: {
      a: {
        api_id: 'a',
        allowed_urls: [
          { url: '/x', methods: ['POST'] },
          { url: '/y', methods: ['GET'] },
        ],
      },
    },
  },
  off: { id: 'off', rate: 1, per: 1, is_inactive: true, access_rights: { a: { api_id: 'a' } } },
  other: { id: 'other', org_id: 'org2', rate: 1, per: 1, access_rights: { a: { api_id: 'a' } } },
  perapi: {
    id: 'perapi',
    partitions: { per_api: true },
    rate: 5,
    per: 1,
    access_rights: { a: { api_id: 'a', limit: { rate: 50, per: 1 } }, c: { api_id: 'c' } },
  },
};
const lookup = (id: string) => policies[id];

test('several policies: the highest effective rate (rate/per) wins, as Tyk 5.4.0 combines them', () => {
  const s: SessionState = { apply_policies: ['slow', 'fast'] };
  assert.equal(applyPolicies(s, lookup, 'org1'), undefined);
  assert.equal(s.rate, 10);
  assert.equal(s.per, 1);
  assert.equal(s.access_rights!.a!.limit!.rate, 10);
  assert.equal(s.access_rights!.a!.limit!.per, 1);
  assert.equal(s.quota_max, 1000, 'the higher quota');
  assert.deepEqual(Object.keys(s.access_rights!).sort(), ['a', 'b']);
  // Order does not matter.
  const t: SessionState = { apply_policies: ['fast', 'slow'] };
  applyPolicies(t, lookup, 'org1');
  assert.equal(t.rate, 10);
  assert.equal(t.per, 1);
});

test('access rights merge: allowed_urls and their methods are the union', () => {
  const s: SessionState = { apply_policies: ['urls', 'urls2'] };
  assert.equal(applyPolicies(s, lookup), undefined);
  assert.deepEqual(s.access_rights!.a!.allowed_urls, [
    { url: '/x', methods: ['GET', 'POST'] },
    { url: '/y', methods: ['GET'] },
  ]);
});

test('an unknown policy: an error alone, skipped among others; inactive and foreign-org policies', () => {
  assert.equal(applyPolicies({ apply_policies: ['nope'] }, lookup), 'policy not found: "nope"');
  const s: SessionState = { apply_policies: ['nope', 'fast'] };
  assert.equal(applyPolicies(s, lookup), undefined);
  assert.equal(s.rate, 10);
  const off: SessionState = { apply_policies: ['off'] };
  applyPolicies(off, lookup);
  assert.equal(off.is_inactive, true);
  assert.match(applyPolicies({ apply_policies: ['other'] }, lookup, 'org1') ?? '', /different organisation/);
});

test('per-API policy: the API limit where given, the policy limit elsewhere', () => {
  const s: SessionState = { apply_policies: ['perapi'] };
  assert.equal(applyPolicies(s, lookup), undefined);
  assert.equal(s.access_rights!.a!.limit!.rate, 50);
  assert.equal(s.access_rights!.c!.limit!.rate, 5);
  assert.equal(s.access_rights!.a!.allowance_scope, 'a');
  assert.equal(s.access_rights!.c!.allowance_scope, 'perapi');
});

test('a session without policies keeps its own rights and limits', () => {
  const s: SessionState = { rate: 3, per: 1, access_rights: { a: { api_id: 'a', limit: { rate: 3, per: 1 } } } };
  assert.equal(applyPolicies(s, lookup), undefined);
  assert.equal(s.rate, 3);
  assert.equal(s.access_rights!.a!.allowance_scope, 'a');
});
