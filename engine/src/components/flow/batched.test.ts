import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runEngine } from '../parse/cli-run.js';

// Benthos v4.51 printed the same for this config (/tmp/peers/bin/benthos -c <config>).
test('batched input applies its policy to the child input (engine CLI, against Benthos v4.51)', async () => {
  const r = await runEngine(`http: { enabled: false }
logger: { level: none }
input:
  batched:
    child:
      generate:
        count: 7
        interval: ''
        mapping: 'root = count("b")'
    policy:
      count: 3
      period: 300ms
pipeline:
  threads: 1
  processors:
    - mapping: 'root = content().string() + " " + batch_index().string() + "/" + batch_size().string()'
output:
  stdout: {}
`);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '1 0/3\n2 1/3\n3 2/3\n4 0/3\n5 1/3\n6 2/3\n7 0/1\n');
});
