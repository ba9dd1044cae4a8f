import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runEngine } from '../parse/cli-run.js';

// Expected outputs are what Benthos v4.51 printed for the same config:
//   /tmp/peers/bin/benthos -c <this config, without the http line>
describe('insert_part, processors and crash processors (engine CLI, against Benthos v4.51)', () => {
  it('insert_part inserts at negative, default and too large indexes, copying the first message metadata', async () => {
    const r = await runEngine(`http: { enabled: false }
logger: { level: none }
input:
  generate:
    count: 2
    interval: ''
    batch_size: 2
    mapping: 'root = if count("c") == 1 { "a" } else { "b" }'
  processors:
    - mapping: 'meta k = content().string()'
pipeline:
  threads: 1
  processors:
    - insert_part:
        index: -2
        content: 'before-last \${! meta("k") } \${! batch_size() }'
    - insert_part:
        content: 'appended'
    - insert_part:
        index: 10
        content: '\${! throw("x") }'
    - processors:
        - mapping: 'root = content().string() + " @" + meta("k") + " " + batch_index().string() + "/" + batch_size().string()'
        - processors: []
output:
  stdout: {}
`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'a @a 0/4\nbefore-last a 2 @a 1/4\nb @b 2/4\nappended @a 3/4\n');
  });

  it('crash logs its interpolated message at FATAL and exits 1', async () => {
    const r = await runEngine(
      `http: { enabled: false }
input:
  stdin: {}
pipeline:
  processors:
    - crash: 'bad \${! content() }'
output:
  stdout: {}
`,
      'hello\n',
    );
    assert.equal(r.code, 1);
    // Benthos: level=fatal msg="bad hello" @service=benthos label="" path=root.pipeline.processors.0
    assert.match(r.stdout + r.stderr, /^level=fatal msg="bad hello" .*path=root\.pipeline\.processors\.0/m);
    assert.doesNotMatch(r.stdout, /^hello$/m, 'the message is not delivered');
  });
});
