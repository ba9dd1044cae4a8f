import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runEngine } from '../parse/cli-run.js';

/**
 * stdin → metadata `topic` → jq → errors shown as `ERR <error>` → stdout. Every expected output
 * below is what Benthos v4.51 printed for the same config and input:
 *   (cat input; sleep 0.3) | /tmp/peers/bin/benthos -c <this config>
 */
function jqPipeline(query: string, extra = ''): string {
  return `http: { enabled: false }
logger: { level: none }
input:
  stdin: {}
pipeline:
  threads: 1
  processors:
    - mapping: 'meta topic = "orders"'
    - jq:
        query: ${JSON.stringify(query)}
${extra ? `        ${extra}\n` : ''}    - mapping: 'root = if errored() { "ERR " + error() } else { content().string() }'
output:
  stdout: {}
`;
}

describe('jq processor (engine CLI, against Benthos v4.51)', () => {
  it('the Benthos documentation example; a document that is not JSON or that the query cannot iterate is flagged and left as it was', async () => {
    const r = await runEngine(
      jqPipeline('{Cities: .locations | map(select(.state == "WA").name) | sort | join(", ") }'),
      '{"locations":[{"name":"Seattle","state":"WA"},{"name":"New York","state":"NY"},{"name":"Bellevue","state":"WA"},{"name":"Olympia","state":"WA"}]}\n{"locations":[]}\nnot json\n{"locations":"x"}\n',
    );
    assert.equal(r.code, 0, r.stderr);
    // the parse error is the engine's JSON reader's (Benthos prints Go's "invalid character 'o' in literal null (expecting 'u')")
    assert.equal(
      r.stdout.replace(/^ERR .*is not valid JSON$/m, 'ERR <not JSON>'),
      '{"Cities":"Bellevue, Olympia, Seattle"}\n{"Cities":""}\nERR <not JSON>\nERR cannot iterate over: string ("x")\n',
    );
  });

  it('keeps integers exact at any size (gojq big ints), other numbers as float64s written as Go writes them', async () => {
    const r = await runEngine(
      jqPipeline('[.a, .a + 1, .a * 2, .b, .b / 3, .b % 7, .c, .c * 1, (.c | tostring), -.a, .d]'),
      '{"a":12345678901234567890,"b":9007199254740993,"c":1.10,"d":1e2}\n{"a":1,"b":10,"c":-0,"d":0.000001}\n{"a":9223372036854775807,"b":-7,"c":2.5e-7,"d":1e21}\n',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      '[12345678901234567890,12345678901234567891,24691357802469135780,9007199254740993,3002399751580331,5,1.1,1.1,"1.1",-12345678901234567890,100]\n[1,2,2,10,3.3333333333333335,3,0,0,"0",-1,0.000001]\n[9223372036854775807,9223372036854775808,18446744073709551614,-7,-2.3333333333333335,0,2.5e-7,2.5e-7,"2.5e-7",-9223372036854775807,1e+21]\n',
    );
  });

  it('makes several emitted values an array, one value the message, and drops a message that emits none', async () => {
    const r = await runEngine(
      jqPipeline('.items[] | select(.n > 1) | .id'),
      '{"items":[{"id":"a","n":1},{"id":"b","n":2},{"id":"c","n":3}]}\n{"items":[{"id":"a","n":2}]}\n{"items":[]}\n{"items":{"x":{"id":"z","n":5},"a":{"id":"y","n":9}}}\n',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '["b","c"]\n"a"\n["y","z"]\n');
  });

  it('output_raw writes strings unquoted and concatenates every value, others as Go json.Marshal writes them', async () => {
    const r = await runEngine(
      jqPipeline('.name, .n, .tags', 'output_raw: true'),
      '{"name":"bob <b>","n":3,"tags":["x","<&>"]}\n{"name":"","n":null,"tags":{}}\n',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'bob <b>3["x","\\u003c\\u0026\\u003e"]\nnull{}\n');
  });

  it('raw reads the message as a string; try/? and // recover', async () => {
    const r = await runEngine(
      jqPipeline('split(",") | map(tonumber? // .) | {sum: (map(numbers) | add), words: map(strings)}', 'raw: true'),
      '1,2,x,3.5\na,b\n10\n',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{"sum":6.5,"words":["x"]}\n{"sum":null,"words":["a","b"]}\n{"sum":10,"words":[]}\n');
  });

  it('binds the metadata to $metadata', async () => {
    const r = await runEngine(jqPipeline('{topic: $metadata.topic, keys: ($metadata | keys), id}'), '{"id":1}\n[1]\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{"id":1,"keys":["topic"],"topic":"orders"}\nERR expected an object but got: array ([1])\n');
  });

  it('evaluates the jq most configs use: try/catch, //, reduce, entries, formats, paths, updates, destructuring, limit, regexes', async () => {
    const r = await runEngine(
      jqPipeline(
        'try (.a | tonumber) catch "bad: \\(.)", (.x // "default"), (reduce .n[] as $i (0; . + $i)), (to_entries | map("\\(.key)=\\(.value)") | join("&")), (.s | @base64), (.s | @base64 | @base64d), ([.n[], .s] | @csv), ([paths] | length), del(.n), (.n |= map(. * 10)), (.n as [$first, $second] | {$first, $second}), [limit(2; .n[])], ([.n[] | select(. > 1)] | first), (.s | test("^h.l")), (.s | [match("l"; "g").offset]), (.s | sub("(?<x>l+)"; "[\\(.x)]")), (.s | ascii_upcase), ([.n[] | tojson] | join(";")), (.n | @json), ({} | .a.b.c = 1), (.n | length), (.s | length), ([.n[] | . / 2]), (.n | add / length), (.n | min, max), (with_entries(select(.key != "s")) | keys), ("x" * 3), ([.n[]?, .s[]?] | length)',
      ),
      '{"a":"12","n":[1,2,3],"s":"hello","x":null}\n{"a":"zz","n":[4],"s":"héllo <&>","x":false}\n{"a":7,"n":[],"s":"","x":"set"}\n',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      '[12,"default",6,"a=12&n=[1,2,3]&s=hello&x=null","aGVsbG8=","hello","1,2,3,\\"hello\\"",7,{"a":"12","s":"hello","x":null},{"a":"12","n":[10,20,30],"s":"hello","x":null},{"first":1,"second":2},[1,2],2,true,[2,3],"he[ll]o","HELLO","1;2;3","[1,2,3]",{"a":{"b":{"c":1}}},3,5,[0.5,1,1.5],2,1,3,["a","n","x"],"xxx",3]\n["bad: tonumber cannot be applied to \\"zz\\": invalid number","default",4,"a=zz&n=[4]&s=héllo <&>&x=false","aMOpbGxvIDwmPg==","héllo <&>","4,\\"héllo <&>\\"",5,{"a":"zz","s":"héllo <&>","x":false},{"a":"zz","n":[40],"s":"héllo <&>","x":false},{"first":4,"second":null},[4],4,true,[2,3],"hé[ll]o <&>","HéLLO <&>","4","[4]",{"a":{"b":{"c":1}}},1,9,[2],4,4,4,["a","n","x"],"xxx",1]\nERR cannot divide: null and number (0)\n',
    );
  });

  it('a failed index names the types as gojq does', async () => {
    const r = await runEngine(jqPipeline('.a.b'), '{"a":5}\n{"a":{"b":[1,2]}}\n[1]\n{"a":null}\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'ERR expected an object but got: number (5)\n[1,2]\nERR expected an object but got: array ([1])\nnull\n');
  });

  it('refuses at lint a query that names what gojq does not define, or does not parse', async () => {
    for (const [query, problem] of [
      ['input', 'function not defined: input/0'],
      ['.a | @base32', 'format not defined: @base32'],
      ['.a |', 'error parsing jq query'],
    ] as const) {
      const r = await runEngine(jqPipeline(query), '{}\n');
      assert.notEqual(r.code, 0);
      assert.ok((r.stdout + r.stderr).includes(problem), r.stdout + r.stderr);
    }
  });
});
