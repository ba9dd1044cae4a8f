import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EngineProcess } from '@svc/engine/testing';
import './noop.js';

// The expected output is what Benthos v4.51 printed for the same config:
//   /tmp/peers/bin/benthos -c <this config, without the http line>
test('noop cache: writes succeed, a get finds nothing (engine CLI, against Benthos v4.51)', async () => {
  const engine = new EngineProcess(`http: { enabled: false }
logger: { level: none }
input:
  generate:
    count: 2
    interval: ''
    mapping: 'root = "v" + count("n").string()'
pipeline:
  threads: 1
  processors:
    - cache: { resource: nothing, operator: set, key: k, value: '\${! content() }' }
    - cache: { resource: nothing, operator: add, key: k, value: 'again' }
    - cache: { resource: nothing, operator: delete, key: k }
    - cache: { resource: nothing, operator: get, key: k }
    - mapping: 'root = if errored() { "ERR " + error() + " | " + content().string() } else { content().string() }'
output:
  stdout: {}
cache_resources:
  - label: nothing
    noop: {}
`);
  assert.equal(await engine.exited, 0, engine.output());
  assert.equal(engine.output(), "ERR operator failed for key 'k': key does not exist | v1\nERR operator failed for key 'k': key does not exist | v2\n");
});
