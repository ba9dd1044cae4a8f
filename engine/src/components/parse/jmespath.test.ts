import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runEngine, stdinPipeline } from './cli-run.js';

// Expected output is what Benthos v4.51 printed for the same config and input:
//   /tmp/peers/bin/benthos -c <this config> < <these lines>
describe('jmespath processor (engine CLI, against Benthos v4.51)', () => {
  it('replaces each document by the query result, numbers as float64s, keys sorted; flags failures', async () => {
    const yaml = stdinPipeline(`    - jmespath:
        query: '{z: locations[?state == \`"WA"\`].name | sort(@) | {WashingtonCities: join('', '', @)}, a: locations[*].n, c: length(locations), d: locations[?n > \`2\`] | [0]}'
    - mapping: 'root = if errored() { "ERR | " + content().string() } else { this }'`);
    const input = [
      '{"locations":[{"name":"Seattle","state":"WA","n":1.50},{"name":"New York","state":"NY","n":12345678901234567890},{"name":"Bellevue","state":"WA","n":3},{"name":"Olympia","state":"WA","n":-0.0}]}',
      '{"locations":[]}',
      'not json',
      '{"locations":"x"}',
    ];
    const r = await runEngine(yaml, input.join('\n') + '\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      `{"a":[1.5,12345678901234567000,3,-0],"c":4,"d":{"n":12345678901234567000,"name":"New York","state":"NY"},"z":{"WashingtonCities":"Bellevue, Olympia, Seattle"}}
{"a":[],"c":0,"d":null,"z":{"WashingtonCities":""}}
ERR | not json
ERR | {"locations":"x"}
`,
    );
  });

  it('answers the same for documents that arrive in one batch, a failing one among them', async () => {
    // the processor searches a batch at once; one failing document must flag only itself (Benthos printed these lines)
    const docs = ['{"locations":[{"n":2.50},{"n":-0.0}]}', '{"locations":"x"}', 'not json', '{"locations":[]}'];
    const yaml = `logger: { level: none }
input:
  generate:
    count: 4
    batch_size: 4
    interval: ''
    mapping: 'root = ${JSON.stringify(docs).replaceAll("'", "''")}.index(count("j") - 1)'
pipeline:
  threads: 1
  processors:
    - mapping: 'root = content().string()'
    - jmespath: { query: '{a: locations[*].n, c: sum(locations[*].n)}' }
    - mapping: 'root = if errored() { "ERR | " + content().string() } else { this }'
output:
  stdout: {}
`;
    const r = await runEngine(yaml);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{"a":[2.5,-0],"c":2.5}\nERR | {"locations":"x"}\nERR | not json\n{"a":[],"c":0}\n');
  });

  it('refuses to start with a query that does not compile', async () => {
    const yaml = stdinPipeline(`    - jmespath:\n        query: '[}'`).replace('logger: { level: none }\n', '');
    const r = await runEngine(yaml, '{}\n');
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /failed to compile JMESPath query: /);
  });
});
