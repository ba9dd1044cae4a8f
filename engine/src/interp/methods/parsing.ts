/**
 * Methods that read text formats into values and write values as text: URLs, form bodies,
 * durations, CSV and YAML, each as Benthos reads them (Go's net/url, time.ParseDuration,
 * encoding/csv, yaml.v3).
 */
import { Scalar, parse, parseDocument, stringify } from 'yaml';
import { CsvParser } from '../../components/io/scanner.js';
import { QueryError, typeError } from '../errors.js';
import { parseGoQuery, parseGoUrl } from '../goparse.js';
import { pluginMethod, simpleMethod } from '../registry.js';
import { JsonNumber, type Obj, float64, isObject, setKey, toStr, Float32, Timestamp } from '../values.js';
import { parseGoDuration } from '../durations.js';

function stringOrBytes(v: unknown): string {
  if (typeof v === 'string' || v instanceof Uint8Array) return toStr(v);
  throw typeError(v, 'string');
}

simpleMethod('parse_url', [], (v) => {
  const u = parseGoUrl(stringOrBytes(v));
  const out: Obj = {
    fragment: u.fragment,
    host: u.host,
    opaque: u.opaque,
    path: u.path,
    raw_fragment: u.raw_fragment,
    raw_path: u.raw_path,
    raw_query: u.raw_query,
    scheme: u.scheme,
  };
  if (u.user) out.user = u.user.password === undefined ? { name: u.user.name } : { name: u.user.name, password: u.user.password };
  return out;
});

pluginMethod('parse_form_url_encoded', [], () => (v) => {
  let values: Map<string, string[]>;
  try {
    values = parseGoQuery(stringOrBytes(v));
  } catch (e) {
    if (e instanceof QueryError && !(typeof v === 'string' || v instanceof Uint8Array)) throw e;
    throw new QueryError(`failed to parse value as url-encoded data: ${(e as Error).message}`);
  }
  const out: Obj = {};
  for (const [k, list] of values) setKey(out, k, list.length === 1 ? list[0] : [...list]);
  return out;
});

pluginMethod('parse_duration', [], () => (v) => JsonNumber.ofInt(parseGoDuration(stringOrBytes(v))));

simpleMethod(
  'parse_csv',
  [
    { name: 'parse_header_row', type: 'bool', default: true },
    { name: 'delimiter', type: 'string', default: ',' },
    { name: 'lazy_quotes', type: 'bool', default: false },
  ],
  (v, [header, delim, lazy]) => {
    const d = toStr(delim);
    if ([...d].length !== 1) throw new QueryError('delimiter value must be exactly one character');
    const text = stringOrBytes(v);
    const p = new CsvParser(d, lazy === true);
    const records = [...p.push(text), ...p.end()];
    const bad = records.find((r) => r.error !== undefined);
    if (bad) throw new QueryError(bad.error!);
    if (records.length === 0) throw new QueryError('zero records were parsed');
    const width = records[0]!.fields.length;
    const short = records.find((r) => r.fields.length !== width);
    if (short) throw new QueryError(`record on line ${short.line}: wrong number of fields`);
    if (header === false) return records.map((r) => [...r.fields]);
    const headers = records[0]!.fields;
    return records.slice(1).map((r) => {
      const o: Obj = {};
      r.fields.forEach((f, i) => setKey(o, headers[i]!, f));
      return o;
    });
  },
);

/** A YAML scalar as yaml.v3 decodes it into `any`: int (int64), float64, bool, null or string. */
function yamlValue(v: unknown): unknown {
  if (typeof v === 'bigint') return JsonNumber.ofInt(v);
  if (typeof v === 'number') return float64(v); // yaml.v3 decodes `5.0` as a float64
  if (Array.isArray(v)) return v.map(yamlValue);
  if (v instanceof Map) {
    const o: Obj = {};
    for (const [k, e] of v) setKey(o, toStr(typeof k === 'string' ? k : String(k)), yamlValue(e));
    return o;
  }
  if (isObject(v)) {
    const o: Obj = {};
    for (const k of Object.keys(v)) setKey(o, k, yamlValue(v[k]));
    return o;
  }
  return v;
}

simpleMethod('parse_yaml', [], (v) => {
  const doc = parseDocument(stringOrBytes(v), { intAsBigInt: true, uniqueKeys: false, version: '1.2' });
  if (doc.errors.length) throw new QueryError(`failed to parse value as YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  return yamlValue(doc.toJS({ maxAliasCount: 100 }));
});

/** A string that a YAML 1.1 or 1.2 reader would take for another type: yaml.v3 quotes it. */
function quotedYamlString(s: string): unknown {
  for (const version of ['1.1', '1.2'] as const) {
    if (typeof parse(s, { version }) !== 'string') return Object.assign(new Scalar(s), { type: Scalar.QUOTE_DOUBLE });
  }
  return s;
}

/** Values as yaml.v3 marshals them: keys sorted, 4-space indents, bytes and timestamps as text. */
function toYamlData(v: unknown): unknown {
  if (typeof v === 'string') return quotedYamlString(v);
  if (v instanceof JsonNumber) return v.int ?? v.value;
  if (v instanceof Float32) return v.short();
  if (v instanceof Timestamp) return v.toRFC3339Nano();
  if (v instanceof Uint8Array) return toStr(v);
  if (Array.isArray(v)) return v.map(toYamlData);
  if (isObject(v)) {
    const o: Obj = {};
    for (const k of Object.keys(v).sort()) setKey(o, k, toYamlData(v[k]));
    return o;
  }
  return v;
}

simpleMethod('format_yaml', [], (v) => {
  const doc = stringify(toYamlData(v), { indent: 4, indentSeq: true, lineWidth: 0 });
  return Buffer.from(doc);
});
