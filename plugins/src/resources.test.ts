/**
 * Benthos' resources, run on both engines: the `resource` input, processor and output, and a `-r`
 * file whose resources join the config's. The same YAML gives the same lines on svc and Benthos.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { benthosMissing, peerFile, runBoth } from './testing/benthos-peer.js';

const CONFIG = `
input:
  resource: numbers
pipeline:
  threads: 1
  processors:
    - resource: tag
    - resource: from_file
    - resource: tag
output:
  resource: out
input_resources:
  - label: numbers
    generate:
      count: 4
      interval: ""
      mapping: 'root = {"n": count("resources_test")}'
processor_resources:
  - label: tag
    mapping: |
      root = this
      root.tags = (this.tags | []).append("t")
output_resources:
  - label: out
    stdout: {}
`;

describe('resources on svc and Benthos', () => {
  it('resource input, processors and output, with a processor from a -r file, print the same lines', async (t) => {
    const extra = peerFile('processor_resources:\n  - label: from_file\n    mapping: |\n      root = this\n      root.file = "r.yaml"\n');
    const { svc, benthos } = await runBoth(CONFIG, { resources: [extra] });
    assert.equal(svc.code, 0, svc.stderr);
    // Compared as JSON: Benthos prints an object's keys sorted (Go maps), svc in the order they were set.
    const json = (out: string) =>
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown);
    const lines = json(svc.stdout);
    assert.deepEqual(
      lines,
      [1, 2, 3, 4].map((n) => ({ file: 'r.yaml', n, tags: ['t', 't'] })),
    );
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.equal(benthos.code, 0, benthos.stderr);
    assert.deepEqual(lines, json(benthos.stdout));
  });

  it('a processor resource nobody declared stops the engine with the same words as Benthos', async (t) => {
    const { svc, benthos } = await runBoth(CONFIG.replace('- resource: from_file', '- resource: nowhere'));
    assert.notEqual(svc.code, 0);
    assert.match(svc.stderr, /processor resource 'nowhere' was not found/);
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.match(benthos.stderr, /processor resource 'nowhere' was not found/);
  });

  it('a -r file resource with the label of one of the config is refused, as by Benthos', async (t) => {
    const clash = peerFile('processor_resources:\n  - label: tag\n    mapping: root = this\n  - label: from_file\n    mapping: root = this\n');
    const { svc, benthos } = await runBoth(CONFIG, { resources: [clash] });
    assert.notEqual(svc.code, 0);
    assert.match(svc.stderr, /processor resource label 'tag' collides with a previously defined resource/);
    if (!benthos) return t.diagnostic(benthosMissing!);
    assert.notEqual(benthos.code, 0);
    assert.match(benthos.stdout + benthos.stderr, /processor resource label 'tag' collides with a previously defined resource/);
  });
});
