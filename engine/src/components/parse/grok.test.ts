import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runEngine, stdinPipeline } from './cli-run.js';

// Expected outputs are what Benthos v4.51 printed for the same config and input:
//   /tmp/peers/bin/benthos -c <config with threads: 1> < <input>
describe('grok processor (engine CLI, against Benthos v4.51)', () => {
  it('parses with the default patterns, typed captures, nested names and own definitions', async () => {
    const yaml = stdinPipeline(`    - grok:
        expressions:
          - '%{COMMONAPACHELOG}'
          - '%{SYSLOGBASE} %{GREEDYDATA:message}'
          - '%{VPC}'
          - '%{WORD:w.x:int}'
          - '%{WORD:a} %{WORD:a}'
          - '%{WORD:first.x},%{INT:second:int}'
        pattern_definitions:
          VPC: '%{NUMBER:version:int} %{NUMBER:accountid} %{NOTSPACE:interfaceid} %{IP:srcaddr} %{NUMBER:big:int} %{NUMBER:ratio:float} %{MYWORD:action}$'
          MYWORD: '[A-Z]+'
          WORD: 'overridden'`);
    const input = [
      '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326',
      'Mar  7 04:02:16 myhost sshd[1234]: Accepted publickey for root',
      '2 123456789010 eni-1235b8ca 172.31.16.139 9223372036854775807 0.25 ACCEPT',
      'word',
      'foo bar',
      'foo,+7',
    ];
    const r = await runEngine(yaml, input.join('\n') + '\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      `{"auth":"frank","bytes":"2326","clientip":"127.0.0.1","httpversion":"1.0","ident":"-","request":"/apache_pb.gif","response":"200","timestamp":"10/Oct/2000:13:55:36 -0700","verb":"GET"}
{"logsource":"myhost","message":"Accepted publickey for root","pid":"1234","program":"sshd","timestamp":"Mar  7 04:02:16"}
{"accountid":"123456789010","action":"ACCEPT","big":9223372036854775807,"interfaceid":"eni-1235b8ca","ratio":0.25,"srcaddr":"172.31.16.139","version":2}
word
{"a":"bar"}
{"first":{"x":"foo"},"second":7}
`,
    );
  });

  it('captures unnamed references and keeps empty values when told to', async () => {
    const yaml = stdinPipeline(`    - grok:
        expressions: [ '%{WORD:a}-%{WORD}-(?P<c>x)?' ]
        named_captures_only: false
        remove_empty_values: false`);
    const r = await runEngine(yaml, 'foo-bar-\n');
    assert.equal(r.stdout, '{"WORD":"bar","a":"foo","c":""}\n', r.stderr);
  });

  it('flags a message no expression matches and passes it on unchanged', async () => {
    const yaml = stdinPipeline(`    - grok:
        expressions: [ '^%{INT:n:int}$' ]
    - mapping: 'root = if errored() { error() + ": " + content().string() } else { this }'`);
    const r = await runEngine(yaml, '12\nnope\n');
    assert.equal(r.stdout, '{"n":12}\nno pattern matches found: nope\n', r.stderr);
  });

  it('gives up a match that would backtrack catastrophically (the expression runs on V8 RegExp, bounded)', async () => {
    const yaml = stdinPipeline(`    - grok:
        expressions: [ '%{EVIL:x}' ]
        pattern_definitions: { EVIL: '(a+)+b' }
    - mapping: 'root = if errored() { error() } else { this }'`);
    const r = await runEngine(yaml, `${'a'.repeat(5000)}c\naab\n`);
    assert.equal(r.stdout, 'no pattern matches found\n{"x":"aab"}\n', r.stderr);
  });

  it('refuses to start with an expression that names an unknown pattern, as Benthos does', async () => {
    const yaml = stdinPipeline(`    - grok:\n        expressions: [ '%{NOPE:a}' ]`).replace('logger: { level: none }\n', '');
    const r = await runEngine(yaml, 'x\n');
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /failed to compile Grok pattern '%\{NOPE:a\}': no pattern found for %\{NOPE\}/);
  });
});
