import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createLogger } from '../observability/logger.js';
import { createPrometheusExporter, prometheusSpec } from '../observability/prometheus.js';
import { redactUrl, scrubSecrets, urlCredentials, urlPasswords } from './redact.js';
import { urlFieldProblem, urlProblem } from './url-field.js';

test('redactUrl: the password goes, user, host, port and path stay', () => {
  assert.equal(redactUrl('amqp://app:s3cret@rabbit:5672/prod'), 'amqp://app:xxxxx@rabbit:5672/prod');
  assert.equal(redactUrl('amqps://app:p%40ss@rabbit/'), 'amqps://app:xxxxx@rabbit/');
  assert.equal(redactUrl('amqp://app@rabbit:5672/'), 'amqp://app@rabbit:5672/');
  assert.equal(redactUrl('amqp://rabbit:5672/'), 'amqp://rabbit:5672/');
  assert.equal(redactUrl('AMQP://u:p@h/?heartbeat=5'), 'AMQP://u:xxxxx@h/?heartbeat=5');
  assert.equal(redactUrl('amqp://a:p1@h1,amqp://b:p2@h2/v'), 'amqp://a:xxxxx@h1,amqp://b:xxxxx@h2/v');
  assert.equal(redactUrl('http://u:pa#ss@h:1'), 'http://u:xxxxx@h:1'); // a stray # does not end the password
  assert.equal(redactUrl('http://u:p@${! meta("host") }/x'), 'http://u:xxxxx@${! meta("host") }/x');
  assert.equal(redactUrl('/etc/schema.avsc'), '/etc/schema.avsc');
});

test("urlProblem with 'hosts': a comma list of host:port after the scheme, each checked; the password never in the problem", () => {
  assert.equal(urlProblem('mongodb://u:p@h1:27017,h2:27018,h3/db?replicaSet=rs0', 'hosts'), undefined);
  assert.equal(urlProblem('mongodb://h1', 'hosts'), undefined);
  assert.match(urlProblem('mongodb://u:s3cret@h1:27017,h2:99999/db', 'hosts') ?? '', /"h2:99999" is not host\[:port\]/);
  assert.match(urlProblem('mongodb://u:s3cret@h1:27017,,h2/db', 'hosts') ?? '', /"" is not host/);
  assert.doesNotMatch(urlProblem('mongodb://u:s3cret@h1:27017,h2:99999/db', 'hosts') ?? '', /s3cret/);
  // Without 'hosts' a host list is not a URL.
  assert.match(urlProblem('mongodb://h1:1,h2:2/db') ?? '', /not a valid URL/);
});

test('urlFieldProblem: one string may list whole URLs with commas (a Redis cluster or Sentinels), each checked', () => {
  assert.equal(urlFieldProblem('redis://a:26379,redis://b:26379'), undefined);
  assert.equal(urlFieldProblem('redis://u:p@a:1, redis://u:p@b:2/0'), undefined);
  assert.equal(urlFieldProblem('http://h/x?a=1,2'), undefined, 'a comma inside a URL is not a list');
  assert.match(urlFieldProblem('redis://a:26379,redis://b:99999') ?? '', /redis:\/\/b:99999/);
});

test('scrubSecrets: URLs and their passwords (as written or decoded) leave any text', () => {
  const urls = ['amqp://app:p%40ss@rabbit:5672/', 'amqp://ops:hunter2@backup:5672/'];
  const text = 'cannot reach amqp://app:p%40ss@rabbit:5672/ (password p@ss), then ops:hunter2 refused, token t0ken';
  const out = scrubSecrets(text, ['t0ken'], urls);
  assert.doesNotMatch(out, /p%40ss|p@ss|hunter2|t0ken/);
  assert.match(out, /amqp:\/\/app:xxxxx@rabbit:5672\//);
  assert.equal(scrubSecrets('nothing secret', ['a'], ['amqp://h/']), 'nothing secret');
  assert.deepEqual(urlPasswords('amqp://a:p%40ss@h1,amqp://b@h2'), ['p%40ss', 'p@ss']);
});

test('urlCredentials: userinfo becomes a basic Authorization header', () => {
  assert.deepEqual(urlCredentials('http://u%20ser:pa%23ss@h:9091/x'), {
    url: 'http://h:9091/x',
    authorization: `Basic ${Buffer.from('u ser:pa#ss').toString('base64')}`,
  });
  assert.deepEqual(urlCredentials('http://h:9091'), { url: 'http://h:9091' });
});

test('a Pushgateway URL with userinfo: the push carries basic auth, the URL none', async () => {
  const seen: Array<{ url?: string; auth?: string }> = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url, auth: req.headers.authorization });
    req.resume().on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const conf = { push_url: `http://pusher:s3cret@127.0.0.1:${port}` };
    const lines: string[] = [];
    const ctx = { logger: createLogger({}, { write: (l) => lines.push(l) }), label: 'prometheus', path: 'root.metrics' };
    const exporter = await createPrometheusExporter(fill(conf), ctx as never);
    await exporter.push();
    await exporter.close();
    assert.ok(seen.length >= 1, lines.join(''));
    assert.equal(seen[0]!.url, '/metrics/job/svc_push');
    assert.equal(seen[0]!.auth, `Basic ${Buffer.from('pusher:s3cret').toString('base64')}`);
  } finally {
    server.close();
  }
});

/** The exporter's config with every default filled in. */
function fill(conf: Record<string, unknown>): never {
  const out: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(prometheusSpec.fields!)) {
    out[k] = conf[k] ?? (f.fields ? Object.fromEntries(Object.entries(f.fields).map(([kk, ff]) => [kk, ff.defaultValue])) : f.defaultValue);
  }
  return out as never;
}
