import { readFile, stat } from 'node:fs/promises';
import { f, registerProcessor, setPath } from '@svc/engine';
import { expandGlobs } from '../io/glob.js';
import { Grok, type CompiledGrok, type GrokValue } from './grok-compiler.js';
import { DEFAULT_GROK_PATTERNS } from './grok-patterns.js';
import { goValue } from './go-value.js';

const spec = f.object({
  expressions: f
    .array(f.string())
    .describe(
      'One or more Grok expressions to attempt against incoming messages. The first expression to match at least one value will be used to form a result.',
    ),
  pattern_definitions: f.map(f.string()).default({}).describe('A map of pattern definitions that can be referenced within `patterns`.'),
  pattern_paths: f
    .array(f.string())
    .default([])
    .describe('A list of paths to load Grok patterns from (lines of `NAME expression`). This field supports wildcards, including super globs (double star).'),
  named_captures_only: f.bool().default(true).advanced().describe('Whether to only capture values from named patterns.'),
  use_default_patterns: f.bool().default(true).advanced().describe("Whether to use the default set of patterns (Benthos' grok set)."),
  remove_empty_values: f.bool().default(true).advanced().describe('Whether to remove values that are empty from the resulting structure.'),
});

/** Reads `NAME expression` lines from the files a path names (a folder: every file in it). */
async function patternsFrom(path: string, into: Map<string, string>): Promise<void> {
  const files = (await stat(path)).isDirectory() ? await expandGlobs([`${path}/*`]) : await expandGlobs([path]);
  for (const file of files) {
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      const space = line.indexOf(' ');
      if (space < 0) throw new Error(`failed to parse patterns from path '${path}': line "${line}" has no expression`);
      into.set(line.slice(0, space), line.slice(space + 1));
    }
  }
}

/**
 * `grok`: the first expression whose match captures at least one value replaces the message
 * with an object of the captures (Benthos' grok processor; keys with dots nest, as gabs' SetP).
 */
registerProcessor('grok', {
  summary:
    'Parses messages into a structured format by attempting to apply a list of Grok expressions, the first expression to result in at least one value replaces the original message with a JSON object containing the values.',
  description:
    'Type hints within patterns are respected: with the pattern `%{WORD:first},%{INT:second:int}` and a payload of `foo,1` the result is `{"first":"foo","second":1}`. Expressions have Go\'s RE2 meaning and cannot backtrack catastrophically: they run on V8\'s RegExp where the translation is exact and V8\'s linear-time engine can take over a match that backtracks too much, else on re2js. The default patterns are those of Benthos (github.com/Jeffail/grok).',
  config: spec,
  examples: [
    "pipeline:\n  processors:\n    - grok:\n        expressions:\n          - '%{VPCFLOWLOG}'\n        pattern_definitions:\n          VPCFLOWLOG: '%{NUMBER:version:int} %{NUMBER:accountid} %{NOTSPACE:interfaceid} %{NOTSPACE:srcaddr} %{NOTSPACE:dstaddr} %{NOTSPACE:srcport:int} %{NOTSPACE:dstport:int} %{NOTSPACE:protocol:int} %{NOTSPACE:packets:int} %{NOTSPACE:bytes:int} %{NUMBER:start:int} %{NUMBER:end:int} %{NOTSPACE:action} %{NOTSPACE:logstatus}'\n",
  ],
  factory: async (conf, ctx) => {
    const own = new Map(Object.entries(conf.pattern_definitions));
    for (const path of conf.pattern_paths) await patternsFrom(path, own);
    let grok: Grok;
    try {
      grok = new Grok(
        { namedOnly: conf.named_captures_only, removeEmpty: conf.remove_empty_values },
        conf.use_default_patterns ? [DEFAULT_GROK_PATTERNS, own] : [own],
      );
    } catch (err) {
      throw new Error(`failed to create grok compiler: ${(err as Error).message}`);
    }
    const compiled: CompiledGrok[] = conf.expressions.map((e) => {
      try {
        return grok.compile(e);
      } catch (err) {
        throw new Error(`failed to compile Grok pattern '${e}': ${(err as Error).message}`);
      }
    });
    return {
      process(batch) {
        for (const m of batch) {
          const text = m.text();
          let values = new Map<string, GrokValue>();
          for (const g of compiled) {
            const parsed = g.parse(text);
            if (parsed instanceof Error) {
              ctx.logger.debug(`Failed to parse body: ${parsed.message}`);
              continue;
            }
            values = parsed;
            if (values.size > 0) break;
          }
          if (values.size === 0) {
            m.setError('no pattern matches found');
            continue;
          }
          let root: unknown = {};
          for (const [k, v] of values) root = setPath(root, k, v);
          m.setJson(goValue(root));
        }
        return [batch];
      },
    };
  },
});
