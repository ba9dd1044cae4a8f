/**
 * The control-flow processors (branch, workflow, while, ...) run on svc and on Benthos v4.51.0
 * with the same YAML: each config's output lines (as JSON) must be the same. Benthos is skipped,
 * saying so, when it is not built; svc's output is checked against the expected lines either way.
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { benthosMissing, runBoth, runPeer } from './testing/benthos-peer.js';

const json = (out: string): unknown[] =>
  out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);

/** Runs the config on both, checks svc's lines against `expected` and Benthos' against svc's. */
async function same(t: TestContext, yaml: string, expected: unknown[]): Promise<void> {
  const { svc, benthos } = await runBoth(yaml);
  assert.equal(svc.code, 0, svc.stderr);
  assert.deepEqual(json(svc.stdout), expected, svc.stderr);
  if (!benthos) return t.diagnostic(benthosMissing!);
  assert.equal(benthos.code, 0, benthos.stderr);
  assert.deepEqual(json(benthos.stdout), json(svc.stdout), 'svc and Benthos printed the same');
}

/** `count` messages from `mapping`, in one batch of `batch`, through `processors`, each printed with its error. */
const pipeline = (count: number, batch: number, mapping: string, processors: string) => `input:
  generate:
    count: ${count}
    batch_size: ${batch}
    interval: ""
    mapping: '${mapping}'
pipeline:
  threads: 1
  processors:
${processors
  .trim()
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}
    - mapping: 'root = {"doc": this.catch(content().string()), "meta": @.without("tag").keys().sort(), "tag": @tag, "err": error()}'
output:
  stdout: {}
`;

describe('branch on svc and Benthos', () => {
  it('maps a request, runs processors on it and maps the result back, keeping the original', async (t) => {
    await same(
      t,
      pipeline(
        3,
        3,
        'root = {"id": count("b1"), "body": "x"}',
        `
- branch:
    request_map: |
      meta tag = "req"
      root.n = this.id * 10
    processors:
      - mutation: 'root.n = this.n + 1'
      - mutation: 'meta inner = "set in branch"'
    result_map: |
      root.result = this.n
      meta tag = metadata("inner") + " / " + @tag.or("none")
`,
      ),
      [1, 2, 3].map((id) => ({ doc: { id, body: 'x', result: id * 10 + 1 }, meta: [], tag: 'set in branch / none', err: null })),
    );
  });

  it('skips deleted requests, flags failed request maps, processors and result maps, and leaves the rest', async (t) => {
    await same(
      t,
      pipeline(
        5,
        5,
        'root = {"id": count("b2")}',
        `
- branch:
    request_map: |
      root = if this.id == 2 { deleted() } else if this.id == 3 { throw("no three") } else { this }
    processors:
      - mapping: 'root = if this.id == 4 { throw("no four") } else { this.id + 100 }'
    result_map: |
      root.r = if this == 105 { throw("no five") } else { this }
`,
      ),
      [
        { doc: { id: 1, r: 101 }, meta: [], tag: null, err: null },
        { doc: { id: 2 }, meta: [], tag: null, err: null },
        { doc: { id: 3 }, meta: [], tag: null, err: 'request mapping failed: failed assignment (line 1): no three' },
        { doc: { id: 4 }, meta: [], tag: null, err: 'processors failed: failed assignment (line 1): no four' },
        { doc: { id: 5 }, meta: [], tag: null, err: 'result mapping failed: failed assignment (line 1): no five' },
      ],
    );
  });

  it('without maps the result is discarded; a child that filters flags the whole batch', async (t) => {
    await same(
      t,
      pipeline(
        2,
        2,
        'root = {"id": count("b3")}',
        `
- branch:
    processors:
      - mapping: 'root = "replaced"'
- branch:
    processors:
      - mapping: 'root = if this.id == 1 { deleted() } else { this }'
`,
      ),
      [
        { doc: { id: 1 }, meta: [], tag: null, err: 'message count from branch processors does not match request, started with 1 messages, finished with 2' },
        { doc: { id: 2 }, meta: [], tag: null, err: 'message count from branch processors does not match request, started with 1 messages, finished with 2' },
      ],
    );
  });
});

describe('workflow on svc and Benthos', () => {
  it('orders branches from their mappings, records succeeded and skipped under meta.workflow, keeps the previous record', async (t) => {
    await same(
      t,
      pipeline(
        3,
        3,
        'root = {"id": count("w1"), "meta": if count("w1p") == 1 { {"workflow": {"succeeded": ["a"]}} } else { deleted() }}',
        `
- workflow:
    branches:
      c:
        request_map: 'root = this.a + this.b'
        processors:
          - mapping: 'root = this * 2'
        result_map: 'root.c = this'
      a:
        request_map: 'root = this.id'
        processors:
          - mapping: 'root = this + 10'
        result_map: 'root.a = this'
      b:
        request_map: 'root = if this.id == 3 { deleted() } else { this.id }'
        processors:
          - mapping: 'root = this + 100'
        result_map: 'root.b = this'
`,
      ),
      [
        // The first message's record says `a` already ran: it is skipped, so `c` fails on the missing a.
        {
          doc: {
            id: 1,
            b: 101,
            meta: {
              workflow: {
                failed: {
                  c: 'request mapping failed: failed assignment (line 1): cannot add types null (from field `this.a`) and number (from field `this.b`)',
                },
                previous: { succeeded: ['a'] },
                skipped: ['a'],
                succeeded: ['b'],
              },
            },
          },
          meta: [],
          tag: null,
          err: null,
        },
        { doc: { id: 2, a: 12, b: 102, c: 228, meta: { workflow: { succeeded: ['a', 'b', 'c'] } } }, meta: [], tag: null, err: null },
        {
          doc: {
            id: 3,
            a: 13,
            meta: {
              workflow: {
                failed: {
                  c: 'request mapping failed: failed assignment (line 1): cannot add types number (from field `this.a`) and null (from field `this.b`)',
                },
                skipped: ['b'],
                succeeded: ['a'],
              },
            },
          },
          meta: [],
          tag: null,
          err: null,
        },
      ],
    );
  });

  it('runs an explicit order with a branch resource; with meta_path "" a failed branch flags the message', async (t) => {
    await same(
      t,
      `${pipeline(
        2,
        2,
        'root = {"id": count("w2")}',
        `
- workflow:
    meta_path: ""
    order: [ [ res, inline ] ]
    branches:
      inline:
        request_map: 'root = if this.id == 2 { throw("two") } else { this }'
        processors:
          - mutation: 'meta tag = "inline"'
        result_map: 'meta tag = metadata("tag")'
`,
      )}processor_resources:
  - label: res
    branch:
      processors:
        - mapping: 'root = "from resource"'
      result_map: 'root.res = content().string()'
`,
      [
        { doc: { id: 1, res: 'from resource' }, meta: [], tag: 'inline', err: null },
        { doc: { id: 2, res: 'from resource' }, meta: [], tag: null, err: 'workflow branches failed: [inline]' },
      ],
    );
  });
});

describe('while, for_each, parallel and retry on svc and Benthos', () => {
  it('while loops on the first message of the batch, at least once, capped by max_loops', async (t) => {
    await same(
      t,
      pipeline(
        2,
        2,
        'root = {"id": count("l1"), "n": 0}',
        `
- while:
    check: 'this.n < 3'
    processors:
      - mutation: 'root.n = this.n + 1'
- while:
    at_least_once: true
    check: 'this.n > 100'
    processors:
      - mutation: 'root.once = true'
- while:
    max_loops: 2
    check: 'true'
    processors:
      - mutation: 'root.capped = this.capped.or(0) + 1'
`,
      ),
      [1, 2].map((id) => ({ doc: { id, n: 3, once: true, capped: 2 }, meta: [], tag: null, err: null })),
    );
  });

  it('for_each and parallel run their processors on each message as a batch of one, keeping the order', async (t) => {
    await same(
      t,
      pipeline(
        4,
        4,
        'root = {"id": count("f1")}',
        `
- for_each:
    - mutation: 'root.size = batch_size()'
    - mapping: 'root = if this.id == 2 { deleted() } else { this }'
- parallel:
    cap: 2
    processors:
      - mutation: 'root.psize = batch_size()'
`,
      ),
      [1, 3, 4].map((id) => ({ doc: { id, size: 1, psize: 1 }, meta: [], tag: null, err: null })),
    );
  });

  it('retry runs the processors again on the original message until they pass or max_retries, with retry_count', async (t) => {
    await same(
      t,
      pipeline(
        2,
        2,
        'root = {"id": count("r1")}',
        `
- retry:
    backoff: { initial_interval: 1ms, max_interval: 2ms }
    processors:
      - mutation: 'root.attempt = count("attempts-" + this.id.string())'
      - mapping: 'root = if this.attempt < 3 { throw("attempt " + this.attempt.string()) } else { this }'
- retry:
    max_retries: 2
    backoff: { initial_interval: 1ms }
    processors:
      - mapping: 'root = throw("always")'
- mutation: 'meta tag = @retry_count.string()'
`,
      ),
      [1, 2].map((id) => ({ doc: { id, attempt: 3 }, meta: ['backoff_duration', 'retry_count'], tag: '2', err: 'failed assignment (line 1): always' })),
    );
  });
});

describe('batch shaping on svc and Benthos', () => {
  const where = `- mutation: 'root.at = [batch_index(), batch_size()]'`;

  it('group_by runs each group through its processors, groupless messages last', async (t) => {
    await same(
      t,
      pipeline(
        5,
        5,
        'root = {"id": count("g1")}',
        `
- group_by:
    - check: 'this.id % 2 == 0'
      processors:
        - mutation: 'root.even = true'
    - check: 'this.id == 5'
${where}`,
      ),
      [
        { doc: { id: 2, even: true, at: [0, 2] }, meta: [], tag: null, err: null },
        { doc: { id: 4, even: true, at: [1, 2] }, meta: [], tag: null, err: null },
        { doc: { id: 5, at: [0, 1] }, meta: [], tag: null, err: null },
        { doc: { id: 1, at: [0, 2] }, meta: [], tag: null, err: null },
        { doc: { id: 3, at: [1, 2] }, meta: [], tag: null, err: null },
      ],
    );
  });

  it('group_by_value groups in order of first appearance; split cuts by size and byte_size', async (t) => {
    await same(
      t,
      pipeline(
        5,
        5,
        'root = {"id": count("g2"), "k": ["a", "b"].index(count("g2k") % 2)}',
        `
- group_by_value:
    value: '\${! this.k }'
- mutation: 'root.group = [batch_index(), batch_size()]'
- split:
    size: 2
${where}`,
      ),
      [
        { doc: { id: 1, k: 'b', group: [0, 3], at: [0, 2] }, meta: [], tag: null, err: null },
        { doc: { id: 3, k: 'b', group: [1, 3], at: [1, 2] }, meta: [], tag: null, err: null },
        { doc: { id: 5, k: 'b', group: [2, 3], at: [0, 1] }, meta: [], tag: null, err: null },
        { doc: { id: 2, k: 'a', group: [0, 2], at: [0, 2] }, meta: [], tag: null, err: null },
        { doc: { id: 4, k: 'a', group: [1, 2], at: [1, 2] }, meta: [], tag: null, err: null },
      ],
    );
  });

  it('split by byte_size, select_parts with negative indexes, bounds_check drops out-of-bounds batches', async (t) => {
    await same(
      t,
      pipeline(
        4,
        4,
        'root = ["x", "xx", "xxx", "xxxx"].index(count("s3") - 1)',
        `
- split:
    size: 0
    byte_size: 3
- select_parts:
    parts: [ -1, 0, 5 ]
- bounds_check:
    min_part_size: 3
- mapping: 'root = {"s": content().string(), "at": [batch_index(), batch_size()]}'`,
      ),
      [
        { doc: { s: 'xxx', at: [0, 2] }, meta: [], tag: null, err: null },
        { doc: { s: 'xxx', at: [1, 2] }, meta: [], tag: null, err: null },
        { doc: { s: 'xxxx', at: [0, 2] }, meta: [], tag: null, err: null },
        { doc: { s: 'xxxx', at: [1, 2] }, meta: [], tag: null, err: null },
      ],
    );
  });
});

describe('archive and unarchive on svc and Benthos', () => {
  it('binary, lines and json_array archives unarchive back to the batch, metadata copied; concatenate joins', async (t) => {
    await same(
      t,
      pipeline(
        3,
        3,
        'root = {"id": count("a1")}',
        `
- mutation: 'meta tag = "t" + this.id.string()'
- archive: { format: json_array }
- mutation: 'root = this.append({"id": 0})'
- unarchive: { format: json_array }
- archive: { format: binary }
- unarchive: { format: binary }
- archive: { format: lines }
- unarchive: { format: lines }
- mutation: 'root.at = [batch_index(), batch_size()]'`,
      ),
      [1, 2, 3, 0].map((id, i) => ({ doc: { id, at: [i, 4] }, meta: [], tag: 't1', err: null })),
    );
  });

  it('json_map unarchives each value with archive_key; a message that does not unarchive is flagged and kept', async (t) => {
    await same(
      t,
      pipeline(
        2,
        2,
        'root = if count("a2") == 1 { {"a": 1} } else { "not json" }',
        `
- unarchive: { format: json_map }
- mutation: 'meta tag = @archive_key'`,
      ).replace('"err": error()}\'', '"err": error().or("").split(":").index(0)}\''),
      [
        { doc: 1, meta: ['archive_key'], tag: 'a', err: '' },
        { doc: 'not json', meta: [], tag: null, err: 'failed to parse message into JSON map' },
      ],
    );
  });
});

describe('json_documents and csv unarchive on svc and Benthos', () => {
  it('splits a stream of JSON documents and a CSV with a header row', async (t) => {
    await same(
      t,
      pipeline(
        2,
        1,
        'root = if count("u1") == 1 { "{\\"a\\": 1}\\n [2, {\\"b\\": \\"}{\\"}] \\"s\\" 3.50 null" } else { "name,note\\nann,\\"says \\"\\"hi\\"\\", twice\\"\\r\\n\\nbob,\\"two\\nlines\\"\\n" }',
        `
- switch:
    - check: 'content().has_prefix("{")'
      processors:
        - unarchive: { format: json_documents }
    - processors:
        - unarchive: { format: csv }`,
      ),
      [
        { doc: { a: 1 }, meta: [], tag: null, err: null },
        { doc: [2, { b: '}{' }], meta: [], tag: null, err: null },
        { doc: 's', meta: [], tag: null, err: null },
        { doc: 3.5, meta: [], tag: null, err: null },
        { doc: null, meta: [], tag: null, err: null },
        { doc: { name: 'ann', note: 'says "hi", twice' }, meta: [], tag: null, err: null },
        { doc: { name: 'bob', note: 'two\nlines' }, meta: [], tag: null, err: null },
      ],
    );
  });
});

describe('tar and zip archives across svc and Benthos', () => {
  for (const format of ['tar', 'zip']) {
    const archiving = `input:
  generate: { count: 3, batch_size: 3, interval: "", mapping: 'root = "file body " + count("t1").string()' }
pipeline:
  processors:
    - archive: { format: ${format}, path: 'dir/\${! batch_index() }-${'n'.repeat(120)}.txt' }
    - mapping: 'root = content().encode("hex")'
output:
  stdout: {}
`;
    const unarchiving = (hex: string) => `input:
  generate: { count: 1, interval: "", mapping: 'root = "${hex}".decode("hex")' }
pipeline:
  processors:
    - unarchive: { format: ${format} }
    - mapping: 'root = {"name": @archive_filename, "body": content().string()}'
output:
  stdout: {}
`;
    const run = async (which: 'svc' | 'benthos', yaml: string) => {
      const r = await runPeer(which, yaml);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trim();
    };
    const expected = [1, 2, 3].map((n, i) => ({ name: `dir/${i}-${'n'.repeat(120)}.txt`, body: `file body ${n}` }));

    it(`${format}: each engine unarchives what the other wrote (long names), names in archive_filename`, async (t) => {
      const ours = await run('svc', archiving);
      assert.deepEqual(json(await run('svc', unarchiving(ours))), expected);
      if (benthosMissing) return t.diagnostic(benthosMissing);
      assert.deepEqual(json(await run('benthos', unarchiving(ours))), expected, 'Benthos reads svc');
      const theirs = await run('benthos', archiving);
      assert.deepEqual(json(await run('svc', unarchiving(theirs))), expected, 'svc reads Benthos');
    });
  }
});
