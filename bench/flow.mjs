// The control-flow processors branch, workflow and switch, generate → processors → drop at
// threads 1, batches of 100: whole CLI processes, start-up subtracted (lib.mjs's engineRate),
// Benthos v4.51.0 on the same YAML in the same run. Baseline: the same config with no processors.
// - branch: request_map picks a field, a mutation on the request, result_map writes it back.
// - workflow: three such branches, two side by side then one reading their results (tiers
//   resolved from the mappings), with the meta.workflow record.
// - switch: three cases on a field, a mutation in each.
// Target (issue 27): ≥ 1× Benthos at threads 1.
import { config, engineRate, fmt } from './lib.mjs';
import { benthosRate, peerCells } from './peers.mjs';

const MAPPING = 'root = {"id": count("c"), "user": {"name": "n" + count("d").string(), "age": count("e") % 90}}';

function cfg(name, count, processors) {
  return config(
    name,
    `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: '${MAPPING}', interval: '', count: ${count}, batch_size: 100 }
pipeline:
  threads: 1
  processors: ${processors}
output:
  drop: {}
`,
  );
}

const BRANCH = `
    - branch:
        request_map: 'root = this.user'
        processors:
          - mutation: 'root.adult = this.age >= 18'
        result_map: 'root.user_adult = this.adult'`;

const WORKFLOW = `
    - workflow:
        branches:
          a:
            request_map: 'root = this.user.age'
            processors:
              - mapping: 'root = this * 2'
            result_map: 'root.a = this'
          b:
            request_map: 'root = this.user.name'
            processors:
              - mapping: 'root = content().uppercase()'
            result_map: 'root.b = content().string()'
          c:
            request_map: 'root = {"a": this.a, "b": this.b}'
            processors:
              - mutation: 'root.both = true'
            result_map: 'root.c = this.both'`;

const SWITCH = `
    - switch:
        - check: this.user.age < 18
          processors:
            - mutation: 'root.group = "minor"'
        - check: this.user.age < 65
          processors:
            - mutation: 'root.group = "adult"'
        - processors:
            - mutation: 'root.group = "senior"'`;

export async function run({ quick = false } = {}) {
  const n = quick ? 100_000 : 500_000;
  const plain = engineRate((c, s) => cfg(s ? 'flow-none-startup' : 'flow-none', c, '[]'), n, { startupRuns: 3 });
  const rows = [];
  for (const [label, slug, procs] of [
    ['branch (request_map, a mutation, result_map)', 'flow-branch', BRANCH],
    ['workflow (3 branches in 2 tiers, meta.workflow record)', 'flow-workflow', WORKFLOW],
    ['switch (3 cases, a mutation each)', 'flow-switch', SWITCH],
  ]) {
    const configFor = (name) => (c, startup) => cfg(startup ? `${name}-startup` : name, c, procs);
    const rate = engineRate(configFor(slug), n, { startupRuns: 3 });
    const benthos = benthosRate(configFor(`${slug}-benthos`), Math.round(n / 2), { startupRuns: 3 });
    rows.push({
      bench: `${label}, threads 1`,
      result: `${fmt(rate)} msg/s`,
      baseline: `no processors ${fmt(plain)} msg/s`,
      ratio: rate / plain,
      target: '≥ 1× Benthos',
      pass: benthos === undefined ? undefined : rate >= benthos,
      ...peerCells(rate, benthos),
    });
  }
  return rows;
}
