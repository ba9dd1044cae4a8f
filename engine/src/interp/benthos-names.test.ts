/**
 * Every function and method Benthos v4.51's core build lists is one a mapping here may call, and
 * `engine list --format json` lists it. The names were captured from the peer with:
 *
 *   /tmp/peers/bin/benthos list --format json bloblang-functions bloblang-methods
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const BENTHOS_FUNCTIONS =
  'batch_index batch_size content counter deleted env error error_source_label error_source_name error_source_path errored file file_rel hostname json ksuid metadata nanoid nothing now pi random_int range throw timestamp_unix timestamp_unix_micro timestamp_unix_milli timestamp_unix_nano tracing_id tracing_span uuid_v4 uuid_v7 var'.split(
    ' ',
  );
const BENTHOS_METHODS =
  'abs all any append apply array assign bloblang bool bytes capitalize catch ceil collapse compress concat contains cos decode decompress decrypt_aes encode encrypt_aes enumerated escape_html escape_url_query exists explode filepath_join filepath_split filter find find_all find_all_by find_by flatten float32 float64 floor fold format format_json format_yaml from from_all get has_prefix has_suffix hash index index_of int16 int32 int64 int8 join json_schema key_values keys length log log10 lowercase map map_each map_each_key max merge min not not_empty not_null number or parse_csv parse_duration parse_duration_iso8601 parse_form_url_encoded parse_json parse_url parse_yaml pow quote re_find_all re_find_all_object re_find_all_submatch re_find_object re_match re_replace re_replace_all replace replace_all replace_all_many replace_many reverse round sin slice sort sort_by split squash string sum tan timestamp trim trim_prefix trim_suffix ts_add_iso8601 ts_format ts_parse ts_round ts_strftime ts_strptime ts_sub ts_sub_iso8601 ts_tz ts_unix ts_unix_micro ts_unix_milli ts_unix_nano type uint16 uint32 uint64 uint8 unescape_html unescape_url_query unique unquote uppercase uuid_v5 values with without zip'.split(
    ' ',
  );

const ENGINE = fileURLToPath(new URL('../cli/main.js', import.meta.url));

describe('the names of Benthos v4.51 (benthos list bloblang-functions bloblang-methods)', () => {
  it('engine list --format json lists every one of them', () => {
    const r = spawnSync(process.execPath, [ENGINE, 'list', '--format', 'json'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const listed = JSON.parse(r.stdout) as Array<{ kind: string; name: string }>;
    const names = (kind: string): Set<string> => new Set(listed.filter((c) => c.kind === kind).map((c) => c.name));
    assert.deepEqual(
      BENTHOS_FUNCTIONS.filter((n) => !names('bloblang-function').has(n)),
      [],
      'functions Benthos lists that engine list does not',
    );
    assert.deepEqual(
      BENTHOS_METHODS.filter((n) => !names('bloblang-method').has(n)),
      [],
      'methods Benthos lists that engine list does not',
    );
  });
});
