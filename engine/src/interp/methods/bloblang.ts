/**
 * `bloblang(mapping)`: runs a mapping given as data on the target. As Benthos' (internal/bloblang/
 * plugins/bloblang.go), the mapping cannot import files and can call only what Benthos' dynamic
 * parser context holds: its pure functions without message access, and the methods registered in
 * its query package (methods that Benthos adds as plugins, such as `abs` or `ts_format`, are
 * unrecognised there). The names below are those `benthos blobl` v4.51 accepts in such a mapping;
 * a name not listed is refused, so a new function stays out until it is checked.
 */
import { ArgumentError, InterpError, argumentError } from '../errors.js';
import { compileValueMapping } from '../mapping.js';
import { asString, defineMethod } from '../registry.js';
import { DELETE, NOTHING } from '../values.js';

const DYNAMIC = {
  functions: new Set(
    'deleted ksuid meta nanoid nothing now random_int range throw timestamp_unix timestamp_unix_micro timestamp_unix_milli timestamp_unix_nano uuid_v4 uuid_v7 var'.split(
      ' ',
    ),
  ),
  methods: new Set(
    `all any append apply array assign bool bytes capitalize catch ceil collapse contains decode decrypt_aes encode encrypt_aes
enumerated escape_html escape_url_query exists explode filepath_join filepath_split filter find find_all find_all_by find_by
flatten floor fold format format_json format_yaml from from_all get has_prefix has_suffix hash index index_of join json_schema key_values
keys length log log10 lowercase map map_each map_each_key max merge min not not_empty not_null number or parse_csv parse_json
parse_url parse_yaml quote re_find_all re_find_all_object re_find_all_submatch re_find_object re_match re_replace
re_replace_all replace replace_all replace_all_many replace_many reverse round slice sort sort_by split string sum timestamp
trim trim_prefix trim_suffix type unescape_html unescape_url_query unique unquote uppercase uuid_v5 values without`.split(/\s+/),
  ),
};

/** Mappings from data compiled at one call site, by text: a stream usually carries a few. */
const CACHE_SIZE = 64;

type Run = (v: unknown) => unknown;

function compile(src: string): Run {
  try {
    return compileValueMapping(src, DYNAMIC);
  } catch (e) {
    // Benthos reports the parser's reason without a position
    if (e instanceof InterpError) throw new ArgumentError(e.reason);
    throw e;
  }
}

/** The root the mapping made, as the method's value: nothing assigned is null. */
function result(root: unknown): unknown {
  return root === NOTHING ? null : root;
}

defineMethod('bloblang', {
  params: [{ name: 'mapping', type: 'string' }],
  build(a) {
    if (a.isConst(0)) {
      const run = compile(asString(a.const(0)));
      return (v) => result(run(v === undefined ? null : v));
    }
    const cache = new Map<string, Run>();
    return (v, c, self) => {
      const src = asString(a.get(0, c, self));
      let run = cache.get(src);
      if (run === undefined) {
        try {
          run = compile(src);
        } catch (e) {
          throw e instanceof ArgumentError ? argumentError(e.message) : e;
        }
        if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(src, run);
      }
      const root = run(v === undefined ? null : v);
      return root === DELETE ? DELETE : result(root);
    };
  },
});
