import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runEngine, stdinPipeline } from '../parse/cli-run.js';

// Expected outputs are what Benthos v4.51 printed for the same config and input:
//   /tmp/peers/bin/benthos -c <this config> < <these lines>
describe('command and subprocess processors (engine CLI, against Benthos v4.51)', () => {
  it('command runs a program per message with argv from args_mapping (no shell), stdout replaces the message', async () => {
    const yaml = stdinPipeline(`    - command:
        name: \${! this.cmd }
        args_mapping: 'this.args'
    - mapping: 'root = if errored() { "ERR " + error().trim() } else { content().string().trim() + " | " + (@command_stderr | "-").trim() }'`);
    const input = [
      '{"cmd":"echo","args":["hello",1,true,{"a":1}]}',
      '{"cmd":"sh","args":["-c","echo out; echo err >&2; exit 3"]}',
      '{"cmd":"sh","args":["-c","tr a-z A-Z; echo warn >&2"]}',
      '{"cmd":"nosuchcommand","args":[]}',
      '{"cmd":"/nosuch/path","args":[]}',
      '{"cmd":"echo","args":"[\\"x\\",2]"}',
      '{"cmd":"echo","args":["a b", "$HOME", "*"]}',
    ];
    const r = await runEngine(yaml, input.join('\n') + '\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      `hello 1 true {"a":1} | -
ERR execution error: exit status 3: err
{"CMD":"SH","ARGS":["-C","TR A-Z A-Z; ECHO WARN >&2"]} | warn
ERR execution error: exec: "nosuchcommand": executable file not found in $PATH:
ERR execution error: fork/exec /nosuch/path: no such file or directory:
x 2 | -
a b $HOME * | -
`,
    );
  });

  it('subprocess answers each line from one running program; stderr flags the message; a program that exits fails its message', async () => {
    const yaml = stdinPipeline(`    - subprocess:
        name: sh
        args: [ '-c', 'while read l; do case "$l" in err*) echo "bad $l" >&2;; quit) exit 0;; *) echo "got $l";; esac; done' ]
    - mapping: 'root = if errored() { "ERR " + error().trim() + " | " + content().string() } else { content().string() }'`);
    const r = await runEngine(yaml, 'a\nb\\nc\nerr1\nd\nquit\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'got a\ngot bnc\nERR bad err1 | err1\ngot d\nERR type was closed | quit\n');
  });
});
