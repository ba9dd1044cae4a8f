/**
 * Differential cases against Benthos v4.51: each row's expected answer is what `benthos blobl` printed
 * for it, observed with the binary that `bash /work/shared/peers/benthos/build.sh` builds:
 *
 *   (printf '%s\n' "$IN"; sleep 0.4) | /tmp/peers/bin/benthos blobl "$M"
 *
 * with IN = the row's `in` and M = its `m`; `out` is the line it wrote to stdout, `err` the first line
 * of stderr. The tests do not run Benthos (CI does not build it): they check that this engine gives the
 * same line, as `engine blobl` prints it. Mappings assign keys in sorted order, as Go prints them.
 * The rows cover the lossless numbers of issue 23 and the 14 differences it lists.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorMessage } from '../errors.js';
import { stringifyJson } from '../message/json.js';
import { Message } from '../message/message.js';
import { InterpError, compileMapping } from './index.js';

interface Row {
  in: string;
  m: string;
  /** Benthos' stdout line. */
  out?: string;
  /** Benthos' stderr line: `failed to execute map: ...` or `failed to parse mapping: line L char C: ...`. */
  err?: string;
  /** Compare `out` as JSON values: Go writes a string's invalid UTF-8 bytes as `\ufffd` escapes, this engine's strings hold U+FFFD. */
  json?: true;
}

const ROWS: Row[] = [
  // ---- numbers
  { in: '{"id":1234567890123456789,"p":1.10,"q":1e2}', m: 'root = this', out: '{"id":1234567890123456789,"p":1.10,"q":1e2}' },
  {
    in: '{"a":-0,"b":-0.0,"c":1E5,"d":0.10000000000000001,"e":18446744073709551615,"f":123456789012345678901234567890,"g":0.0000001,"h":1.5e300}',
    m: 'root = this',
    out: '{"a":-0,"b":-0.0,"c":1E5,"d":0.10000000000000001,"e":18446744073709551615,"f":123456789012345678901234567890,"g":0.0000001,"h":1.5e300}',
  },
  {
    in: '{"id":1234567890123456789,"p":1.10,"q":1e2}',
    m: 'root.a = this.id + 1\nroot.b = this.p + 0\nroot.c = this.q + 1\nroot.d = this.id.string()\nroot.e = this.format_json(no_indent:true).string()\nroot.f = this.id == 1234567890123456789\nroot.g = this.id > 1234567890123456788\nroot.h = this.p.string()\nroot.i = this.q.string()\nroot.j = this.id * 10\nroot.k = [this.p, this.q]\nroot.l = this.id.int64()\nroot.m = this.id % 1000\nroot.n = -this.id\nroot.o = this.id.number()',
    out: '{"a":1234567890123456790,"b":1.1,"c":101,"d":"1234567890123456789","e":"{\\"id\\":1234567890123456789,\\"p\\":1.10,\\"q\\":1e2}","f":true,"g":true,"h":"1.10","i":"1e2","j":-6101065172474983726,"k":[1.10,1e2],"l":1234567890123456789,"m":789,"n":-1234567890123456789,"o":1234567890123456800}',
  },
  {
    in: '{"id":9223372036854775807,"n":-9223372036854775808}',
    m: 'root.a = this.id + 1\nroot.b = this.n - 1\nroot.c = this.id * 2\nroot.d = this.n / -1\nroot.e = this.n % -1\nroot.f = this.id.uint64() + 1\nroot.g = this.n.abs()\nroot.h = 9223372036854775807 * 3',
    out: '{"a":-9223372036854775808,"b":9223372036854775807,"c":-2,"d":9223372036854776000,"e":0,"f":-9223372036854775808,"g":9223372036854775807,"h":9223372036854775805}',
  },
  {
    in: '{"id":1234567890123456789,"p":-1.50,"q":1e2,"z":0.0}',
    m: 'root.a = this.id.abs()\nroot.b = "%v %d %s".format(this.id, this.id, this.p)\nroot.c = this.z.bool()\nroot.d = [this.q, this.p].sort()\nroot.e = this.id.round()\nroot.f = this.q.int64().catch("not an int64")',
    out: '{"a":1234567890123456789,"b":"1234567890123456789 %!d(json.Number=1234567890123456789) -1.50","c":true,"d":[-1.50,1e2],"e":1234567890123456789,"f":"not an int64"}',
  },
  { in: '{"s":"{\\"a\\":1.10,\\"b\\":12345678901234567891}"}', m: 'root = this.s.parse_json()', out: '{"a":1.1,"b":12345678901234567000}' },
  // ---- numbers keep their type (issue 37 item 2): a whole float64 stays a float64, sum() adds float64s, unique() by float64 value, .string() keeps a document's text
  { in: '{"a":4294967296}', m: 'root = (this.a * 1.0) * 4294967296', out: '18446744073709552000' },
  {
    in: '{"a":4294967296}',
    m: 'root = [(this.a * 1.0).string(), (4 / 2).string(), (4 / 2) * 4294967296 * 4294967296, 1.0.string()]',
    out: '["4.294967296e+09","2",36893488147419103000,"1"]',
  },
  { in: '{}', m: 'root = 10000000000.0 * 1000000000.0', out: '10000000000000000000' },
  {
    in: '{}',
    m: 'root = ["5".number().string(), "5".number() * 9223372036854775807, 5.number() * 4294967296 * 4294967296]',
    out: '["5",46116860184273880000,92233720368547760000]',
  },
  { in: '{}', m: 'root = [9223372036854775807, 1].sum()', out: '9223372036854776000' },
  {
    in: '{}',
    m: 'root = [[1.0, 2].sum() * 4294967296 * 4294967296, [3, 4].sum().string(), [3, 4].max() * 4294967296 * 4294967296]',
    out: '[55340232221128655000,"7",73786976294838210000]',
  },
  { in: '{"a":[1,1.0,2.50,2.5,"1"]}', m: 'root = this.a.unique()', out: '[1,2.50,"1"]' },
  { in: '{}', m: 'root = [1, 1.0].unique()', out: '[1]' },
  {
    in: '{"a":99999999.99,"b":1e-7,"c":0.000001,"d":1.0,"e":100000000,"f":0.0001}',
    m: 'root = [this.a.string(), this.b.string(), this.c.string(), this.d.string(), this.e.string(), this.f.string(), this.a, this.b]',
    out: '["99999999.99","1e-7","0.000001","1.0","100000000","0.0001",99999999.99,1e-7]',
  },
  {
    in: '{}',
    m: 'root = [2.5.floor() * 4294967296 * 4294967296, 10.0.ceil() * 4294967296 * 4294967296, (-3.0).abs() * 4294967296 * 4294967296, 4.0.pow(2) * 4294967296 * 4294967296]',
    out: '[0,0,55340232221128655000,295147905179352830000]',
  },
  {
    in: '{"a":1.0,"b":5}',
    m: 'root = [this.a * 4294967296 * 4294967296, this.b * 1.0 * 4294967296 * 4294967296, (this.a + 0).string(), 1000000.0.string(), (1.0 * 4294967296 * 4294967296).string()]',
    out: '[18446744073709552000,92233720368547760000,"1","1e+06","1.8446744073709552e+19"]',
  },
  {
    in: '{}',
    m: 'root = ["{\\"a\\":5}".parse_json().a * 4294967296 * 4294967296, "{\\"a\\":5}".parse_json(use_number: true).a * 4294967296 * 4294967296, "a: 5.0".parse_yaml().a * 4294967296 * 4294967296]',
    out: '[92233720368547760000,0,92233720368547760000]',
  },
  { in: '{}', m: 'root = "%v %v %v %T".format(1000000.0, 2.0, 3, 2.0)', out: '1e+06 2 3 float64' },
  {
    in: '{"a":1234567.5,"b":0.00001,"c":[1.5,12]}',
    m: 'root = [this.a.string(), this.b.string(), this.c.string(), this.a, this.b]',
    out: '["1234567.5","0.00001","[1.5,12]",1234567.5,0.00001]',
  },
  {
    in: '{}',
    m: 'root = [(0.0 * -1).string(), "%v".format(100000000.0), 1234567890123456789.number().string()]',
    out: '["-0","1e+08","1.2345678901234568e+18"]',
  },
  { in: '{}', m: 'root = [0.0 * -1.0, (0.0 * -1.0).string(), 4/2, 1000000000000.0*1000000000000.0*1000.0]', out: '[-0,"-0",2,1e+27]' },
  {
    in: '{}',
    m: 'meta foo = 2.0\nroot = [@foo * 4294967296 * 4294967296, 2.0.int64(), (1.0*2).bool(), 3.0.format_json().string()]',
    out: '[36893488147419103000,2,true,"3"]',
  },
  // ---- issue 37 item 3: re_find_object on bytes (null for a group that took no part), capitalize after U+200B, slice through a character (json: Go escapes each invalid byte as \ufffd, compared as JSON values)
  { in: '{"s":"ab"}', m: 'root = this.s.bytes().re_find_object("(?P<x>a)(?P<y>z)?")', out: '{"0":"YQ==","x":"YQ==","y":null}' },
  { in: '{"s":"ab"}', m: 'root = this.s.re_find_object("(?P<x>a)(?P<y>z)?")', out: '{"0":"a","x":"a","y":""}' },
  { in: '{"s":"ab"}', m: 'root = this.s.bytes().re_find_all_object("(?P<x>a)(?P<y>z)?")', out: '[{"0":"YQ==","x":"YQ==","y":null}]' },
  { in: '{"s":"\\u200bhello world"}', m: 'root = this.s.capitalize()', out: '​Hello World' },
  { in: '{"s":"a\\u200bb c\\u00a0d e-f"}', m: 'root = this.s.capitalize()', out: 'A​B C D E-F' },
  {
    in: '{"s":"h€llo"}',
    m: 'root = [this.s.slice(0, 2), this.s.slice(2), this.s.slice(1, 3)]',
    out: '["h\\ufffd","\\ufffd\\ufffdllo","\\ufffd\\ufffd"]',
    json: true,
  },
  {
    in: '{"s":"h😀llo"}',
    m: 'root = [this.s.slice(0, 2), this.s.slice(3, 6), this.s.slice(2,4)]',
    out: '["h\\ufffd","\\ufffd\\ufffdl","\\ufffd\\ufffd"]',
    json: true,
  },
  // ---- errors read as Benthos' (issue 37 item 5): Go's json.Decoder texts for parse_json (the first value only: `1 2` is 1), an argument's error named by its method (ResolveDynamic), an unknown name without a suggestion (as Benthos prints none)
  {
    in: '{"s":"abc"}',
    m: 'root = this.s.parse_json()',
    err: "failed to execute map: failed assignment (line 1): field `this.s`: failed to parse value as JSON: invalid character 'a' looking for beginning of value",
  },
  {
    in: '{}',
    m: 'root = "{\\"a\\" 1}".parse_json()',
    err: "failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: invalid character '1' after object key",
  },
  {
    in: '{}',
    m: 'root = "{\\"a\\":1 2}".parse_json()',
    err: "failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: invalid character '2' after object key:value pair",
  },
  {
    in: '{}',
    m: 'root = "[1 2]".parse_json()',
    err: "failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: invalid character '2' after array element",
  },
  {
    in: '{}',
    m: 'root = "{\\"a\\":1".parse_json()',
    err: 'failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: unexpected EOF',
  },
  { in: '{}', m: 'root = "".parse_json()', err: 'failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: EOF' },
  {
    in: '{}',
    m: 'root = "\\"ab\\u0001\\"".parse_json()',
    err: "failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: invalid character '\\x01' in string literal",
  },
  {
    in: '{}',
    m: 'root = "{1:2}".parse_json()',
    err: "failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: invalid character '1' looking for beginning of object key string",
  },
  {
    in: '{}',
    m: 'root = "[1,]".parse_json()',
    err: "failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: invalid character ']' looking for beginning of value",
  },
  { in: '{}', m: 'root = "1 2".parse_json()', out: '1' },
  {
    in: '{}',
    m: 'root = "tru".parse_json()',
    err: 'failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: unexpected EOF',
  },
  {
    in: '{}',
    m: 'root = "-".parse_json()',
    err: 'failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: unexpected EOF',
  },
  { in: '{}', m: 'root = "01".parse_json()', out: '0' },
  {
    in: '{}',
    m: 'root = "\\"\\\\x\\"".parse_json()',
    err: "failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: invalid character 'x' in string escape code",
  },
  {
    in: '{}',
    m: 'root = "nul".parse_json()',
    err: 'failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: unexpected EOF',
  },
  {
    in: '{}',
    m: 'root = "1.e5".parse_json()',
    err: "failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: invalid character 'e' after decimal point in numeric literal",
  },
  {
    in: '{}',
    m: 'root = "[1,2".parse_json()',
    err: 'failed to execute map: failed assignment (line 1): string literal: failed to parse value as JSON: unexpected EOF',
  },
  { in: '{"s":"abc"}', m: 'root = this.s.parse_json().catch(error())', out: 'null' },
  {
    in: '{"s":"abc"}',
    m: 'root = this.s.parse_json(use_number: true)',
    err: "failed to execute map: failed assignment (line 1): field `this.s`: failed to parse value as JSON: invalid character 'a' looking for beginning of value",
  },
  { in: '{}', m: 'root = {}.merge(5)', out: '{}' },
  { in: '{}', m: 'root = this.merge("a")', out: '{}' },
  { in: '{}', m: 'root = this.uppercas()', err: "failed to parse mapping: line 1 char 23: unrecognised method 'uppercas'" },
  { in: '{}', m: 'root = nw()', err: "failed to parse mapping: line 1 char 12: unrecognised function 'nw'" },
  { in: '{}', m: 'root = this.foo.nothing_like_it()', err: "failed to parse mapping: line 1 char 34: unrecognised method 'nothing_like_it'" },
  { in: '{}', m: 'root = totally_unknown_fn()', err: "failed to parse mapping: line 1 char 28: unrecognised function 'totally_unknown_fn'" },
  { in: '{}', m: 'root = {}.merge(this.nope)', out: '{}' },
  { in: '{}', m: 'root = "x".contains(this.nope)', out: 'false' },
  {
    in: '{}',
    m: 'root = "abc".replace_all(this.nope, "x")',
    err: "failed to execute map: failed assignment (line 1): method 'replace_all': failed to extract input arg 'old': wrong argument type, expected string, got null",
  },
  {
    in: '{}',
    m: 'root = [1,2].index(this.nope)',
    err: "failed to execute map: failed assignment (line 1): method 'index': failed to extract input arg 'index': expected number value, got null",
  },
  {
    in: '{}',
    m: 'root = "abc".slice(this.nope)',
    err: "failed to execute map: failed assignment (line 1): method 'slice': failed to extract input arg 'low': expected number value, got null",
  },
  {
    in: '{}',
    m: 'root = "abc".slice("x".number())',
    err: "failed to execute map: failed assignment (line 1): method 'slice': failed to extract input arg 'low': string literal: strconv.ParseFloat: parsing \"x\": invalid syntax",
  },
  {
    in: '{}',
    m: 'root = [1].append(this.nope.number())',
    err: "failed to execute map: failed assignment (line 1): method 'append': failed to extract input arg '0': expected number value, got null from field `this.nope`",
  },
  // ---- bloblang (issue 38): a mapping from data, with Benthos' dynamic environment (no message, no imports, the query package's pure names only)
  {
    in: '{"body":{"foo":"hello world"},"mapping":"root.foo = this.foo.uppercase()"}',
    m: 'root.body = this.body.bloblang(this.mapping)',
    out: '{"body":{"foo":"HELLO WORLD"}}',
  },
  {
    in: '{"m":"root = env(\\"HOME\\")"}',
    m: 'root = {}.bloblang(this.m)',
    err: "failed to execute map: failed assignment (line 1): unrecognised function 'env'",
  },
  { in: '{}', m: 'root = {}.bloblang("root = env(\\"HOME\\")")', err: "failed to parse mapping: line 1 char 43: unrecognised function 'env'" },
  {
    in: '{"m":"root = content()"}',
    m: 'root = {}.bloblang(this.m)',
    err: "failed to execute map: failed assignment (line 1): unrecognised function 'content'",
  },
  {
    in: '{"m":"root = this.a.abs()"}',
    m: 'root = {"a":-1}.bloblang(this.m)',
    err: "failed to execute map: failed assignment (line 1): unrecognised method 'abs'",
  },
  {
    in: '{"m":"map x { root = this.a }\\nroot.b = this.apply(\\"x\\")\\nroot.c = @foo\\nlet v = 5\\nroot.d = $v"}',
    m: 'root = {"a":3}.bloblang(this.m)',
    err: 'failed to execute map: failed assignment (line 3): metadata cannot be queried in this context',
  },
  {
    in: '{"m":"meta foo = 5\\nroot = this"}',
    m: 'root = {"a":3}.bloblang(this.m)',
    err: 'failed to execute map: failed assignment (line 1): unable to assign metadata in the current context',
  },
  { in: '{"m":"root.x = 1"}', m: 'root = 5.bloblang(this.m)', out: '{"x":1}' },
  { in: '{"m":"root = this.a.nope()"}', m: 'root = {}.bloblang(this.m)', err: "failed to execute map: failed assignment (line 1): unrecognised method 'nope'" },
  { in: '{"m":"root = 5"}', m: 'root = this.missing.bloblang(this.m)', out: '5' },
  {
    in: '{"m":5}',
    m: 'root = {}.bloblang(this.m)',
    err: "failed to execute map: failed assignment (line 1): method 'bloblang': failed to extract input arg 'mapping': wrong argument type, expected string, got number",
  },
  // ---- compress/decompress (issue 38): gzip, pgzip, zlib, flate read Go's output and round-trip; Benthos' level checks and header errors
  {
    in: '{"g":"H4sIAAAJbogA/wAFAPr/aGVsbG8DAIamEDYFAAAA","z":"eJwABQD6/2hlbGxvAwAGLAIV","f":"AAUA+v9oZWxsbwMA","p":"H4sIAAAJbogA/wAFAPr/aGVsbG8AAAD//wMAhqYQNgUAAAA="}',
    m: 'root = [this.g.decode("base64").decompress("gzip").string(), this.z.decode("base64").decompress("zlib").string(), this.f.decode("base64").decompress("flate").string(), this.p.decode("base64").decompress("pgzip").string()]',
    out: '["hello","hello","hello","hello"]',
  },
  {
    in: '{}',
    m: 'root = ["hello".compress("gzip", 9).decompress("gzip").string(), "hello".compress("zlib").decompress("zlib").string(), "hello".compress("flate", 0).decompress("flate").string(), "hello".compress("pgzip").decompress("gzip").string(), "hello".compress("gzip", -2).decompress("gzip").string()]',
    out: '["hello","hello","hello","hello","hello"]',
  },
  { in: '{}', m: 'root = "hello".compress("nope")', err: 'failed to parse mapping: line 1 char 32: compression type not recognised: nope' },
  { in: '{}', m: 'root = "hello".decompress("nope")', err: 'failed to parse mapping: line 1 char 34: compression type not recognised: nope' },
  { in: '{}', m: 'root = "hello".decompress("gzip")', err: 'failed to execute map: failed assignment (line 1): unexpected EOF' },
  { in: '{}', m: 'root = "hellohello".decompress("gzip")', err: 'failed to execute map: failed assignment (line 1): gzip: invalid header' },
  { in: '{}', m: 'root = "hello".decompress("zlib")', err: 'failed to execute map: failed assignment (line 1): zlib: invalid header' },
  { in: '{}', m: 'root = 5.compress("gzip")', err: 'failed to execute map: failed assignment (line 1): expected bytes value, got number (5)' },
  { in: '{}', m: 'root = "hello".compress("gzip", 12)', err: 'failed to execute map: failed assignment (line 1): gzip: invalid compression level: 12' },
  { in: '{}', m: 'root = "hello".compress("zlib", 12)', err: 'failed to execute map: failed assignment (line 1): zlib: invalid compression level: 12' },
  {
    in: '{}',
    m: 'root = "hello".compress("flate", -3)',
    err: 'failed to execute map: failed assignment (line 1): flate: invalid compression level -3: want value in range [-2, 9]',
  },
  {
    in: '{"g":"H4sIAAAJbogA/wAFAPr/aGVsbG8DAIamEDYFAAAA"}',
    m: 'root = this.g.decode("base64").slice(0, 20).decompress("gzip")',
    err: 'failed to execute map: failed assignment (line 1): unexpected EOF',
  },
  // ---- ts_strftime (issue 38): itchyny/timefmt-go's conversions, flags, widths, compositions and zones
  { in: '{"t":"2020-08-14T11:50:26.371Z"}', m: 'root = this.t.ts_strftime("%Y-%b-%d %H:%M:%S.%f")', out: '2020-Aug-14 11:50:26.371000' },
  { in: '{"t":1597405526}', m: 'root = this.t.ts_strftime("%Y-%b-%d %H:%M:%S", "UTC")', out: '2020-Aug-14 11:45:26' },
  {
    in: '{"t":"2021-01-03T04:05:06+02:30"}',
    m: 'root = this.t.ts_strftime("%a %A %b %B %c|%C %d %D %e %F %g %G %h %H %I %j %k %l %m %M %p %P %r %R %s %S %T %u %U %V %w %W %x %X %y %Y %z %Z %% %:z %::z %:::z %+ %v %Q")',
    out: 'Sun Sunday Jan January Sun Jan  3 04:05:06 2021|20 03 01/03/21  3 2021-01-03 20 2020 Jan 04 04 003  4  4 01 05 AM am 04:05:06 AM 04:05 1609637706 06 04:05:06 7 01 53 0 00 01/03/21 04:05:06 21 2021 +0230 +0230 % +02:30 +02:30:00 +02:30 Sun Jan  3 04:05:06 +0230 2021  3-Jan-2021 %Q',
  },
  {
    in: '{"t":"2021-01-03T16:05:06Z"}',
    m: 'root = this.t.ts_strftime("%-d|%_d|%05d|%^a|%#b|%#p|%^B|%10A|%-10A|%_5H|%3f|%9f|%-j|%^c|%5z|%_5z|%-z|%")',
    out: '3| 3|00003|SUN|JAN|pm|JANUARY|    Sunday|    Sunday|   16|000|000000000|3|SUN JAN  3 16:05:06 2021|+0000| +000|+000|%',
  },
  {
    in: '{"t":"2021-01-03T16:05:06Z"}',
    m: 'root = this.t.ts_strftime("%H", "America/New_York") + this.t.ts_strftime(" %Z %z", "Europe/Paris")',
    out: '11 CET +0100',
  },
  {
    in: '{"t":"2021-01-03T16:05:06Z"}',
    m: 'root = this.t.ts_strftime("%H", "Nowhere/Zone")',
    err: 'failed to parse mapping: line 1 char 48: failed to parse timezone location name: unknown time zone Nowhere/Zone',
  },
  {
    in: '{"t":"2008-12-29T00:00:00Z"}',
    m: 'root = [this.t.ts_strftime("%G-%V-%u %g %U %W"), "2010-01-03T00:00:00Z".ts_strftime("%G-%V-%u %U %W %j"), "2024-12-31T23:59:59-11:45".ts_strftime("%j %:z %z %Z")]',
    out: '["2009-01-1 09 52 52","2009-53-7 01 00 003","366 -11:45 -1145 -1145"]',
  },
  { in: '{}', m: 'root = 5.ts_strftime("%Y %E %O %q %3", "UTC")', out: '1970 %E %O %q  %3' },
  // ---- ts_strptime (issue 38): itchyny/timefmt-go's parser, its week dates, zones and error texts
  { in: '{"t":"2020-Aug-14"}', m: 'root = this.t.ts_strptime("%Y-%b-%d")', out: '"2020-08-14T00:00:00Z"' },
  { in: '{"t":"2020-Aug-14 11:50:26.371000"}', m: 'root = this.t.ts_strptime("%Y-%b-%d %H:%M:%S.%f")', out: '"2020-08-14T11:50:26.371Z"' },
  {
    in: '{}',
    m: 'root = ["2021-01-03T04:05:06+02:30".ts_strptime("%Y-%m-%dT%H:%M:%S%z"), "2021-01-03 04:05:06 -0700".ts_strptime("%F %T %z"), "Sun Jan  3 04:05:06 2021".ts_strptime("%c"), "12/31/99 11:59:59 PM".ts_strptime("%D %r"), "1609637706".ts_strptime("%s"), "2021 003".ts_strptime("%Y %j")]',
    out: '["2021-01-03T04:05:06+02:30","2021-01-03T04:05:06-07:00","2021-01-03T04:05:06Z","1999-12-31T23:59:59Z","2021-01-03T01:35:06Z","2021-01-03T00:00:00Z"]',
  },
  {
    in: '{}',
    m: 'root = ["2009-01-1".ts_strptime("%G-%V-%u"), "2010 00 0".ts_strptime("%Y %U %w"), "2010 01 1".ts_strptime("%Y %W %u"), "20 21-5-3".ts_strptime("%C %y-%m-%e"), "12:05 am".ts_strptime("%I:%M %p"), "2021-01-03 04:05:06 EST".ts_strptime("%F %T %Z"), "2021-01-03 04:05:06 +05:30:15".ts_strptime("%F %T %::z")]',
    out: '["2008-12-29T00:00:00Z","2009-12-27T00:00:00Z","2010-01-04T00:00:00Z","2021-05-03T00:00:00Z","1900-01-01T00:05:00Z","2021-01-03T04:05:06Z","2021-01-03T04:05:06+05:30"]',
  },
  {
    in: '{"t":"2020-13-01"}',
    m: 'root = this.t.ts_strptime("%Y-%m-%d")',
    err: 'failed to execute map: failed assignment (line 1): failed to parse "2020-13-01" with "%Y-%m-%d": cannot parse "%m"',
  },
  {
    in: '{"t":"2020-01-01x"}',
    m: 'root = this.t.ts_strptime("%Y-%m-%d")',
    err: 'failed to execute map: failed assignment (line 1): failed to parse "2020-01-01x" with "%Y-%m-%d": unparsed string "x"',
  },
  {
    in: '{"t":"2020/01"}',
    m: 'root = this.t.ts_strptime("%Y-%m")',
    err: 'failed to execute map: failed assignment (line 1): failed to parse "2020/01" with "%Y-%m": expected \'-\'',
  },
  {
    in: '{"t":"2020"}',
    m: 'root = this.t.ts_strptime("%Y %")',
    err: 'failed to execute map: failed assignment (line 1): failed to parse "2020" with "%Y %": expected \' \'',
  },
  {
    in: '{"t":"2020"}',
    m: 'root = this.t.ts_strptime("%Q")',
    err: 'failed to execute map: failed assignment (line 1): failed to parse "2020" with "%Q": unexpected format "%Q"',
  },
  {
    in: '{"t":"2020 +05"}',
    m: 'root = this.t.ts_strptime("%Y %:z")',
    err: 'failed to execute map: failed assignment (line 1): failed to parse "2020 +05" with "%Y %:z": expected \':\' for "%:z"',
  },
  {
    in: '{"t":"2009-01"}',
    m: 'root = this.t.ts_strptime("%Y-%V")',
    err: 'failed to execute map: failed assignment (line 1): failed to parse "2009-01" with "%Y-%V": use "%G" to parse ISO year for "%V"',
  },
  { in: '{"t":5}', m: 'root = this.t.ts_strptime("%Y")', err: 'failed to execute map: failed assignment (line 1): expected string value, got number (5)' },
  {
    in: '{"t":"2020 x"}',
    m: 'root = this.t.ts_strptime("%Y %Z")',
    err: 'failed to execute map: failed assignment (line 1): failed to parse "2020 x" with "%Y %Z": cannot parse "" with "%Z"',
  },
  // ---- timestamp comparison
  {
    in: '{"t":"2020-01-02T03:04:05Z","u":"2020-01-02T04:04:05+02:00"}',
    m: 'root.a = this.t.ts_parse("2006-01-02T15:04:05Z07:00") < this.u.ts_parse("2006-01-02T15:04:05Z07:00")\nroot.b = this.t.ts_parse("2006-01-02T15:04:05Z07:00") >= this.u.ts_parse("2006-01-02T15:04:05Z07:00")\nroot.c = this.t.ts_parse("2006-01-02T15:04:05Z07:00") <= this.t\nroot.d = this.t.ts_parse("2006-01-02T15:04:05Z07:00") > "2020"',
    out: '{"a":true,"b":false,"c":true,"d":true}',
  },
  {
    in: '{"t":"2020-01-02T03:04:05Z"}',
    m: 'root.a = this.t.ts_parse("2006-01-02T15:04:05Z07:00") > 5',
    err: 'failed to execute map: failed assignment (line 1): cannot compare types timestamp (from method ts_parse) and number (from number literal)',
  },
  // ---- bytes stay bytes
  {
    in: '{"s":" a,b "}',
    m: 'root.a = this.s.bytes().uppercase().type()\nroot.b = this.s.bytes().lowercase().type()\nroot.c = this.s.bytes().capitalize().type()\nroot.d = this.s.bytes().trim().type()\nroot.e = this.s.bytes().trim(" ").type()\nroot.f = this.s.bytes().trim_prefix(" ").type()\nroot.g = this.s.bytes().trim_suffix(" ").type()\nroot.h = this.s.bytes().replace_all("a","A").type()\nroot.i = this.s.bytes().replace_all_many(["a","A"]).type()\nroot.j = this.s.bytes().split(",").map_each(x -> x.type())\nroot.k = this.s.bytes().re_find_object("(?P<x>a)").x.type()\nroot.l = this.s.bytes().split(",")',
    out: '{"a":"bytes","b":"bytes","c":"bytes","d":"bytes","e":"bytes","f":"bytes","g":"bytes","h":"bytes","i":"bytes","j":["bytes","bytes"],"k":"bytes","l":["IGE=","YiA="]}',
  },
  // ---- timestamps as strings
  {
    in: '{"t":"2020-01-02T03:04:05Z"}',
    m: 'root.a = this.t.ts_parse("2006-01-02T15:04:05Z07:00").escape_html()\nroot.b = this.t.ts_parse("2006-01-02T15:04:05Z07:00").escape_url_query()\nroot.c = this.t.ts_parse("2006-01-02T15:04:05Z07:00").unescape_html()\nroot.d = this.t.ts_parse("2006-01-02T15:04:05Z07:00").unescape_url_query()\nroot.e = this.t.ts_parse("2006-01-02T15:04:05Z07:00").quote()\nroot.f = this.t.ts_parse("2006-01-02T15:04:05Z07:00").format()\nroot.g = this.t.ts_parse("2006-01-02T15:04:05Z07:00").ts_parse("2006-01-02T15:04:05Z07:00")',
    out: '{"a":"2020-01-02T03:04:05Z","b":"2020-01-02T03%3A04%3A05Z","c":"2020-01-02T03:04:05Z","d":"2020-01-02T03:04:05Z","e":"\\"2020-01-02T03:04:05Z\\"","f":"2020-01-02T03:04:05Z","g":"2020-01-02T03:04:05Z"}',
  },
  {
    in: '{"t":"2020-01-02T03:04:05Z"}',
    m: 'root.a = this.t.ts_parse("2006-01-02T15:04:05Z07:00").unquote()',
    err: 'failed to execute map: failed assignment (line 1): method ts_parse: invalid syntax',
  },
  // ---- regex empty matches
  {
    in: '{"s":"abc","u":"héllo 😀x"}',
    m: 'root.a = this.s.re_find_all("b*")\nroot.b = this.s.re_find_all_submatch("(b)*")\nroot.c = this.s.re_replace_all("b*","X")\nroot.d = "abcbb".re_replace_all("b*","[$0]")\nroot.e = this.u.re_replace_all("o*","_")\nroot.f = this.u.re_find_all("l*")',
    out: '{"a":["","b",""],"b":[["",""],["b","b"],["",""]],"c":"XaXcX","d":"[]a[b]c[bb]","e":"_h_é_l_l_ _😀_x_","f":["","","ll","","","",""]}',
  },
  // ---- ts_format MST
  {
    in: '{"t":"2020-01-02T03:04:05-08:00","u":"2020-01-02T03:04:05+05:30"}',
    m: 'root.a = this.t.ts_parse("2006-01-02T15:04:05Z07:00").ts_format("MST Z07:00 -0700")\nroot.b = this.u.ts_parse("2006-01-02T15:04:05Z07:00").ts_format("MST")',
    out: '{"a":"-0800 -08:00 -0800","b":"+0530"}',
  },
  // ---- years beyond 275760
  {
    in: '{"n":9999999999999}',
    m: 'root.a = this.n.ts_format("2006-01-02T15:04:05Z07:00 Mon Jan 002", "UTC")\nroot.b = this.n.timestamp().ts_unix_nano()\nroot.c = this.n.ts_unix_milli()\nroot.d = "%v".format(this.n.ts_tz("UTC"))',
    out: '{"a":"318857-05-20T17:46:39Z Sun May 140","b":1864712048423024128,"c":9999999999999000,"d":"318857-05-20 17:46:39 +0000 UTC"}',
  },
  {
    in: '{"n":1e300,"m":9.3e18}',
    m: 'root.a = this.n.ts_format()\nroot.b = this.n.timestamp().ts_unix()\nroot.c = this.n % 3\nroot.d = this.m % 3',
    out: '{"a":"292277026596-12-04T15:30:08Z","b":-9223372036854775808,"c":-2,"d":-2}',
  },
  // ---- ceil
  { in: '{"n":-0.5}', m: 'root.a = this.n.ceil()\nroot.b = this.n.floor()\nroot.c = (-0.5).ceil()', out: '{"a":0,"b":-1,"c":0}' },
  // ---- %U
  { in: '{}', m: 'root.a = "%U %U %#U".format(-1, 65, 66)', out: '{"a":"U+FFFFFFFFFFFFFFFF U+0041 U+0042 \'B\'"}' },
  // ---- counter
  { in: '{}', m: 'root.a = counter(-1)', err: 'failed to execute map: failed assignment (line 1): min argument must be >0, got -1' },
  { in: '{}', m: 'root.a = counter(2, 2)', err: 'failed to execute map: failed assignment (line 1): max argument must be >0 and >min, got 2' },
  { in: '{}', m: 'root.a = counter(set: null)\nroot.b = counter(0)\nroot.c = counter(set: 2.7)\nroot.d = counter(1, 3)', out: '{"a":0,"b":0,"c":2,"d":1}' },
  // ---- nanoid
  { in: '{}', m: 'root.a = nanoid(2.5).length()\nroot.b = nanoid(2.5, "ab").length()', out: '{"a":2,"b":2}' },
  // ---- constant argument types
  { in: '{}', m: 'root.a = "a".number(null)', err: 'failed to parse mapping: line 1 char 26: field default: expected number value, got null' },
  { in: '{}', m: 'root.a = throw(5)', err: 'failed to parse mapping: line 1 char 18: field why: wrong argument type, expected string, got number' },
  {
    in: '{}',
    m: 'root.a = "a".replace_all(1, 2)',
    err: 'failed to parse mapping: line 1 char 31: field old: wrong argument type, expected string, got number',
  },
  { in: '{}', m: 'root.a = "a".bool("x")', err: 'failed to parse mapping: line 1 char 23: field default: expected bool value, got string ("x")' },
  { in: '{}', m: 'root.a = "a".bool(5)', out: '{"a":true}' },
  // ---- parse_json range
  {
    in: '{"s":"1e400"}',
    m: 'root = this.s.parse_json()',
    err: 'failed to execute map: failed assignment (line 1): field `this.s`: failed to parse value as JSON: json: cannot unmarshal number 1e400 into Go value of type float64',
  },
  // ---- root before assignment
  { in: '{"x":1}', m: 'root.a = root', out: '{"x":1}' },
  { in: '{"x":1}', m: 'root.a = root.or("d")\nroot.b = root.a.type()', out: '{"a":"d","b":"string"}' },
  // ---- match as ==
  {
    in: '{"x":true,"y":"a","z":[1,true]}',
    m: 'root.a = match this.x { 1 => "one", _ => "other" }\nroot.b = match this.y.bytes() { "a" => "yes", _ => "no" }\nroot.c = match this.z { [1.0, 1] => "yes", _ => "no" }\nroot.d = match "2020-01-02T03:04:05Z".ts_parse("2006-01-02T15:04:05Z07:00") { "2020-01-02T03:04:05Z" => "yes", _ => "no" }',
    out: '{"a":"one","b":"yes","c":"yes","d":"yes"}',
  },
  // ---- objects and arrays (issue 38): map, with, find_by, find_all_by, concat, zip, squash, assign, map_each_key, collapse, explode, not_empty, replace
  { in: '{"a":{"b":1,"c":2},"d":[1,2]}', m: 'root = this.map(x -> x.a.b)', out: '1' },
  {
    in: '{"d":"fourth","e":"fifth","inner":{"a":"first","b":"second","c":"third"}}',
    m: 'root = this.with("inner.a","inner.c","d")',
    out: '{"d":"fourth","inner":{"a":"first","c":"third"}}',
  },
  { in: '{"a":{"b":1},"c":"x"}', m: 'root = this.with("a.b.z","c.d","nope")', out: '{"a":{"b":1},"c":"x"}' },
  { in: '{"a":1}', m: 'root = this.with(5)', err: 'failed to parse mapping: line 1 char 20: argument 0: expected string value, got number (5)' },
  { in: '[1,2]', m: 'root = this.with("a")', err: 'failed to execute map: failed assignment (line 1): expected object value, got array' },
  {
    in: '{"xs":[{"n":1},{"n":2},{"n":2}]}',
    m: 'root.a = this.xs.find_by(x -> x.n == 2)\nroot.b = this.xs.find_all_by(x -> x.n == 2)\nroot.c = this.xs.find_by(x -> x.n == 5)\nroot.d = this.xs.find_all_by(x -> x.n == 5)',
    out: '{"a":1,"b":[1,2],"c":-1,"d":[]}',
  },
  {
    in: '{"xs":[{"n":1},{"n":2}]}',
    m: 'root = this.xs.find_by(x -> x.n)',
    err: 'failed to execute map: failed assignment (line 1): field `this.xs`: query returned a non-boolean value for index 0: expected bool value, got number (1)',
  },
  {
    in: '{"xs":[{"n":1},{"n":"a"}]}',
    m: 'root = this.xs.find_all_by(x -> x.n + 1 > 0)',
    err: 'failed to execute map: failed assignment (line 1): field `this.xs`: query returned an error for index 1: cannot add types string (from field `x.n`) and number (from number literal)',
  },
  {
    in: '{"xs":"a"}',
    m: 'root = this.xs.find_by(x -> true)',
    err: 'failed to execute map: failed assignment (line 1): expected array value, got string from field `this.xs` ("a")',
  },
  {
    in: '{"s":"foo bar foo"}',
    m: 'root.a = this.s.replace("foo","baz")\nroot.b = this.s.replace_many(["foo","x","bar","y"])',
    out: '{"a":"baz bar baz","b":"x y x"}',
  },
  {
    in: '{"foo":["a","b"],"bar":["c"],"baz":["d","e","f"]}',
    m: 'root.a = this.foo.concat(this.bar, this.baz)\nroot.b = this.foo.concat()\nroot.c = this.foo.zip(this.bar.concat(["z"]))',
    out: '{"a":["a","b","c","d","e","f"],"b":["a","b"],"c":[["a","c"],["b","z"]]}',
  },
  { in: '{"foo":["a","b"]}', m: 'root = this.foo.concat("x")', err: 'failed to parse mapping: line 1 char 28: expected array value, got string ("x")' },
  { in: '{"foo":["a","b"]}', m: 'root = this.foo.zip()', err: 'failed to execute map: failed assignment (line 1): zip requires at least one argument' },
  {
    in: '{"foo":["a","b"]}',
    m: 'root = this.foo.zip(["a"])',
    err: "failed to execute map: failed assignment (line 1): can't zip different length array values",
  },
  { in: '{"foo":"a"}', m: 'root = this.foo.zip(["a"])', err: 'failed to execute map: failed assignment (line 1): expected array value, got string ("a")' },
  { in: '{"foo":["a"]}', m: 'root = this.foo.zip(["a"],["b","c"])', err: "failed to parse mapping: line 1 char 37: can't zip different length array values" },
  {
    in: '{"locations":[{"name":"New York","state":"NY"},{"name":"Seattle","state":"WA"},{"name":"Bellevue","state":"WA"},{"name":"Olympia","state":"WA"}]}',
    m: 'root.locations = this.locations.map_each(loc -> {loc.state: [loc.name]}).squash()',
    out: '{"locations":{"NY":["New York"],"WA":["Seattle","Bellevue","Olympia"]}}',
  },
  { in: '{"a":[{"x":1},"s",{"x":2,"y":{"z":1}},{"y":{"z":2}}]}', m: 'root = this.a.squash()', out: '{"x":[1,2],"y":{"z":[1,2]}}' },
  {
    in: '{"a":{"x":1,"y":{"p":1,"q":[1]}}}',
    m: 'root.a = this.a.assign({"x":2,"y":{"q":[2],"r":3},"z":4})\nroot.b = [1].assign([2,3])\nroot.c = [1].assign(4)',
    out: '{"a":{"x":2,"y":{"p":1,"q":[2],"r":3},"z":4},"b":[1,2,3],"c":[1,4]}',
  },
  { in: '{"a":{"x":1}}', m: 'root = this.a.assign("str")', out: '{"x":1}' },
  {
    in: '{"a":"x"}',
    m: 'root = this.a.assign({})',
    err: 'failed to execute map: failed assignment (line 1): expected object or array value, got string from field `this.a` ("x")',
  },
  {
    in: '{"a":{"b":1,"c":2}}',
    m: 'root.a = this.a.map_each_key(k -> k.uppercase())\nroot.b = this.a.map_each_key(k -> if k == "c" { "z" })',
    out: '{"a":{"B":1,"C":2},"b":{"b":1,"z":2}}',
  },
  {
    in: '{"a":{"b":1}}',
    m: 'root = this.a.map_each_key(k -> 5)',
    err: 'failed to execute map: failed assignment (line 1): field `this.a`: unexpected result from key mapping: expected string value, got number (5)',
  },
  {
    in: '{"foo":[{"bar":"1"},{"bar":{}},{"bar":"2"},{"bar":[]}],"x.y":{"z":1}}',
    m: 'root.a = this.collapse()\nroot.b = this.collapse(include_empty: true)\nroot.c = [].collapse(true)\nroot.d = {}.collapse(true)',
    out: '{"a":{"foo.0.bar":"1","foo.2.bar":"2","x.y.z":1},"b":{"foo.0.bar":"1","foo.1.bar":{},"foo.2.bar":"2","foo.3.bar":[],"x.y.z":1},"c":{"":[]},"d":{"":{}}}',
  },
  { in: '{"a":5}', m: 'root = this.a.collapse()', err: 'failed to execute map: failed assignment (line 1): field `this.a`: not an object or array' },
  {
    in: '{"id":1,"value":["foo","bar","baz"]}',
    m: 'root = this.explode("value")',
    out: '[{"id":1,"value":"foo"},{"id":1,"value":"bar"},{"id":1,"value":"baz"}]',
  },
  {
    in: '{"id":1,"value":{"bar":[3,4],"baz":{"bev":5},"foo":2}}',
    m: 'root = this.explode("value")',
    out: '{"bar":{"id":1,"value":[3,4]},"baz":{"id":1,"value":{"bev":5}},"foo":{"id":1,"value":2}}',
  },
  { in: '{"id":1,"n":{"value":[1,2],"k":3}}', m: 'root = this.explode("n.value")', out: '[{"id":1,"n":{"k":3,"value":1}},{"id":1,"n":{"k":3,"value":2}}]' },
  {
    in: '{"id":1,"value":"x"}',
    m: 'root = this.explode("value")',
    err: "failed to execute map: failed assignment (line 1): field `this`: expected array or object value at path 'value', found: string",
  },
  {
    in: '{"id":1}',
    m: 'root = this.explode("value")',
    err: "failed to execute map: failed assignment (line 1): field `this`: expected array or object value at path 'value', found: null",
  },
  {
    in: '[1]',
    m: 'root = this.explode("value")',
    err: 'failed to execute map: failed assignment (line 1): expected object value, got array from field `this`',
  },
  {
    in: '{"a":"","b":[],"c":{},"d":"x","e":[1],"f":{"g":1}}',
    m: 'root.d = this.d.not_empty()\nroot.e = this.e.not_empty()\nroot.f = this.f.not_empty()',
    out: '{"d":"x","e":[1],"f":{"g":1}}',
  },
  { in: '{"a":""}', m: 'root = this.a.not_empty()', err: 'failed to execute map: failed assignment (line 1): field `this.a`: string value is empty' },
  { in: '{"b":[]}', m: 'root = this.b.not_empty()', err: 'failed to execute map: failed assignment (line 1): field `this.b`: array value is empty' },
  { in: '{"c":{}}', m: 'root = this.c.not_empty()', err: 'failed to execute map: failed assignment (line 1): field `this.c`: object value is empty' },
  {
    in: '{"c":5}',
    m: 'root = this.c.not_empty()',
    err: 'failed to execute map: failed assignment (line 1): expected string, array or object value, got number from field `this.c` (5)',
  },
  // ---- parsing and durations (issue 38): parse_url, parse_form_url_encoded, parse_duration, parse_duration_iso8601, parse_csv, parse_yaml, format_yaml, ts_round, ts_sub, ts_add_iso8601, ts_sub_iso8601
  {
    in: '{"u":"https://user:pass@example.com:8080/a%20b/c?x=1;y=2#frag%20x"}',
    m: 'root = this.u.parse_url()',
    out: '{"fragment":"frag x","host":"example.com:8080","opaque":"","path":"/a b/c","raw_fragment":"","raw_path":"","raw_query":"x=1;y=2","scheme":"https","user":{"name":"user","password":"pass"}}',
  },
  {
    in: '{"u":"mailto:joe@example.com"}',
    m: 'root = this.u.parse_url()',
    out: '{"fragment":"","host":"","opaque":"joe@example.com","path":"","raw_fragment":"","raw_path":"","raw_query":"","scheme":"mailto"}',
  },
  {
    in: '{"u":"/a/b%2Fc?q"}',
    m: 'root = this.u.parse_url()',
    out: '{"fragment":"","host":"","opaque":"","path":"/a/b/c","raw_fragment":"","raw_path":"/a/b%2Fc","raw_query":"q","scheme":""}',
  },
  {
    in: '{"u":"http://x.com/%zz"}',
    m: 'root = this.u.parse_url()',
    err: 'failed to execute map: failed assignment (line 1): field `this.u`: parse "http://x.com/%zz": invalid URL escape "%zz"',
  },
  {
    in: '{"u":"a:b/c"}',
    m: 'root = this.u.parse_url()',
    out: '{"fragment":"","host":"","opaque":"b/c","path":"","raw_fragment":"","raw_path":"","raw_query":"","scheme":"a"}',
  },
  {
    in: '{"u":"1a:b"}',
    m: 'root = this.u.parse_url()',
    err: 'failed to execute map: failed assignment (line 1): field `this.u`: parse "1a:b": first path segment in URL cannot contain colon',
  },
  {
    in: '{"u":5}',
    m: 'root = this.u.parse_url()',
    err: 'failed to execute map: failed assignment (line 1): expected string value, got number from field `this.u` (5)',
  },
  { in: '{"f":"a=1&b=2&b=3&c=x+y%21"}', m: 'root = this.f.parse_form_url_encoded()', out: '{"a":"1","b":["2","3"],"c":"x y!"}' },
  {
    in: '{"f":"a=%zz"}',
    m: 'root = this.f.parse_form_url_encoded()',
    err: 'failed to execute map: failed assignment (line 1): failed to parse value as url-encoded data: invalid URL escape "%zz"',
  },
  {
    in: '{"d":["1h30m","50us","-1.5s","0","300ms","1h0.5m","2562047h"]}',
    m: 'root = this.d.map_each(d -> d.parse_duration())',
    out: '[5400000000000,50000,-1500000000,0,300000000,3630000000000,9223369200000000000]',
  },
  { in: '{"d":"1x"}', m: 'root = this.d.parse_duration()', err: 'failed to execute map: failed assignment (line 1): time: unknown unit "x" in duration "1x"' },
  { in: '{"d":"abc"}', m: 'root = this.d.parse_duration()', err: 'failed to execute map: failed assignment (line 1): time: invalid duration "abc"' },
  { in: '{"d":"10"}', m: 'root = this.d.parse_duration()', err: 'failed to execute map: failed assignment (line 1): time: missing unit in duration "10"' },
  {
    in: '{"d":["P1D","PT2.5S","P1Y2M","-P1W","PT1H30M","P0D"]}',
    m: 'root = this.d.map_each(d -> d.parse_duration_iso8601())',
    out: '[86400000000000,2500000000,36816444000000000,-604800000000000,5400000000000,0]',
  },
  {
    in: '{"d":"X1D"}',
    m: 'root = this.d.parse_duration_iso8601()',
    err: "failed to execute map: failed assignment (line 1): X1D: expected 'P' period mark at the start",
  },
  {
    in: '{"d":"P1"}',
    m: 'root = this.d.parse_duration_iso8601()',
    err: 'failed to execute map: failed assignment (line 1): P1: missing designator at the end',
  },
  {
    in: '{"c":"a,b\\n1,2\\n3,4"}',
    m: 'root.a = this.c.parse_csv()\nroot.b = this.c.parse_csv(false)\nroot.c = "a;b\\n1;\\"x;y\\"".parse_csv(delimiter: ";")',
    out: '{"a":[{"a":"1","b":"2"},{"a":"3","b":"4"}],"b":[["a","b"],["1","2"],["3","4"]],"c":[{"a":"1","b":"x;y"}]}',
  },
  {
    in: '{"c":"a,b\\n1,2,3"}',
    m: 'root = this.c.parse_csv()',
    err: 'failed to execute map: failed assignment (line 1): field `this.c`: record on line 2: wrong number of fields',
  },
  { in: '{"c":""}', m: 'root = this.c.parse_csv()', err: 'failed to execute map: failed assignment (line 1): field `this.c`: zero records were parsed' },
  {
    in: '{"c":"a"}',
    m: 'root = this.c.parse_csv(delimiter: "ab")',
    err: 'failed to execute map: failed assignment (line 1): field `this.c`: delimiter value must be exactly one character',
  },
  {
    in: '{"y":"a: 1\\nb: [x, 2.5, true, null]\\nc:\\n  d: 12345678901234567890\\n  e: 9007199254740993\\n"}',
    m: 'root = this.y.parse_yaml()',
    out: '{"a":1,"b":["x",2.5,true,null],"c":{"d":12345678901234567890,"e":9007199254740993}}',
  },
  {
    in: '{"a":{"b":["x"],"c":{"d":true,"e":null},"f":"multi\\nline","g":"yes","h":"1.0"}}',
    m: 'root.y = this.a.format_yaml().string()',
    out: '{"y":"b:\\n    - x\\nc:\\n    d: true\\n    e: null\\nf: |-\\n    multi\\n    line\\ng: \\"yes\\"\\nh: \\"1.0\\"\\n"}',
  },
  {
    in: '{"a":[]}',
    m: 'root.x = this.a.format_yaml().string()\nroot.y = {}.format_yaml().string()\nroot.z = "s".format_yaml().string()',
    out: '{"x":"[]\\n","y":"{}\\n","z":"s\\n"}',
  },
  {
    in: '{"t":"2020-01-02T03:04:05.678Z"}',
    m: 'root.a = this.t.ts_round(1000000000)\nroot.b = this.t.ts_round(3600000000000)\nroot.c = this.t.ts_sub("2020-01-01T00:00:00Z")\nroot.d = this.t.ts_add_iso8601("P1M2DT3H")\nroot.e = this.t.ts_sub_iso8601("P1Y")\nroot.f = "2020-01-31T00:00:00Z".ts_add_iso8601("P1M")\nroot.g = this.t.ts_add_iso8601("PT1.5S")\nroot.h = this.t.ts_round(7000000000)',
    out: '{"a":"2020-01-02T03:04:06Z","b":"2020-01-02T03:00:00Z","c":97445678000000,"d":"2020-02-04T06:04:05.678Z","e":"2019-01-02T03:04:05.678Z","f":"2020-03-02T00:00:00Z","g":"2020-01-02T03:04:07.178Z","h":"2020-01-02T03:04:09Z"}',
  },
  {
    in: '{"t":"2020-01-02T03:04:05Z"}',
    m: 'root = this.t.ts_add_iso8601("bad")',
    err: "failed to parse mapping: line 1 char 36: bad: expected 'P' period mark at the start",
  },
  {
    in: '{"n":5,"f":1.5}',
    m: 'root.y = [this.n + 1, this.f * 2, 3, "on", "1:20", "0o7", "~", ""].format_yaml().string()',
    out: '{"y":"- 6\\n- 3\\n- 3\\n- \\"on\\"\\n- \\"1:20\\"\\n- \\"0o7\\"\\n- \\"~\\"\\n- \\"\\"\\n"}',
  },
  // ---- functions and the remaining methods (issue 38): pi, var, ksuid, uuid_v7, tracing_id, tracing_span, error_source_* (shapes where random), sin, cos, tan, int8/int16/uint8/uint16 (Benthos plugin errors), uuid_v5, filepath_join/split, re_find_all_object, encrypt_aes/decrypt_aes, from, from_all
  {
    in: '{"a":1}',
    m: 'root.a = tracing_id()\nroot.b = tracing_span()\nroot.c = error_source_name()\nroot.d = error_source_label()\nroot.e = error_source_path()\nroot.f = pi()\nroot.g = ksuid().length()\nroot.h = uuid_v7().length()\nroot.i = uuid_v7("2020-01-02T03:04:05Z").slice(0, 13)\nroot.j = uuid_v7().slice(14, 15)',
    out: '{"a":"00000000000000000000000000000000","b":{},"c":null,"d":null,"e":null,"f":3.141592653589793,"g":27,"h":36,"i":"016f6435-cc88","j":"7"}',
  },
  { in: '{"a":1}', m: 'let x = {"b": 2}\nroot.a = var("x").b', out: '{"a":2}' },
  { in: '{"a":1}', m: 'root = var("nope")', err: "failed to execute map: failed assignment (line 1): variable 'nope' undefined" },
  {
    in: '{"n":0.5}',
    m: 'root.a = this.n.sin()\nroot.b = this.n.cos()\nroot.c = this.n.tan()\nroot.d = (this.n * 2).sin()\nroot.e = pi()',
    out: '{"a":0.479425538604203,"b":0.8775825618903728,"c":0.5463024898437905,"d":0.8414709848078965,"e":3.141592653589793}',
  },
  { in: '{"n":"x"}', m: 'root = this.n.sin()', err: 'failed to execute map: failed assignment (line 1): expected number value, got string ("x")' },
  {
    in: '{"n":[127,-128,255,32767,65535,"12"]}',
    m: 'root.a = this.n.0.int8()\nroot.b = this.n.1.int8()\nroot.c = this.n.2.uint8()\nroot.d = this.n.3.int16()\nroot.e = this.n.4.uint16()\nroot.f = this.n.5.int8()',
    out: '{"a":127,"b":-128,"c":255,"d":32767,"e":65535,"f":12}',
  },
  {
    in: '{"n":128}',
    m: 'root = this.n.int8()',
    err: 'failed to execute map: failed assignment (line 1): value is too large to be cast as an 8-bit signed integer',
  },
  {
    in: '{"n":-1}',
    m: 'root = this.n.uint16()',
    err: 'failed to execute map: failed assignment (line 1): signed integer value is negative and cannot be cast as an unsigned integer',
  },
  {
    in: '{"n":65536}',
    m: 'root = this.n.uint16()',
    err: 'failed to execute map: failed assignment (line 1): value is too large to be cast as a 16-bit unsigned integer',
  },
  {
    in: '{"n":-32769}',
    m: 'root = this.n.int16()',
    err: 'failed to execute map: failed assignment (line 1): value is too small to be cast as a 16-bit signed integer',
  },
  {
    in: '{"s":"hello"}',
    m: 'root.a = this.s.uuid_v5()\nroot.b = this.s.uuid_v5("dns")\nroot.c = this.s.uuid_v5("URL")\nroot.d = this.s.uuid_v5("6ba7b812-9dad-11d1-80b4-00c04fd430c8")\nroot.e = null.uuid_v5()',
    out: '{"a":"b7502f40-1152-59f2-ba10-69aeed522cdf","b":"9342d47a-1bab-5709-9869-c840b2eac501","c":"074171de-bc84-5ea4-b636-1135477620e1","d":"4d71d03f-f19b-5d9e-8523-9628ba18063c","e":null}',
  },
  {
    in: '{"s":"hello"}',
    m: 'root = this.s.uuid_v5("nope")',
    err: 'failed to execute map: failed assignment (line 1): field `this.s`: invalid ns uuid: "nope"',
  },
  {
    in: '{"p":["/foo/","bar.txt"],"q":"/foo/bar.txt"}',
    m: 'root.a = this.p.filepath_join()\nroot.b = this.q.filepath_split()\nroot.c = ["a","","../b/"].filepath_join()\nroot.d = [].filepath_join()\nroot.e = "file".filepath_split()',
    out: '{"a":"/foo/bar.txt","b":["/foo/","bar.txt"],"c":"b","d":"","e":["","file"]}',
  },
  {
    in: '{"p":["a",1]}',
    m: 'root = this.p.filepath_join()',
    err: 'failed to execute map: failed assignment (line 1): field `this.p`: path element 1: expected string value, got number (1)',
  },
  {
    in: '{"s":"a1b2 c3"}',
    m: 'root.a = this.s.re_find_all_object("(?P<d>[a-z])(?P<l>[0-9])")\nroot.b = this.s.re_find_all_object("x")',
    out: '{"a":[{"0":"a1","d":"a","l":"1"},{"0":"b2","d":"b","l":"2"},{"0":"c3","d":"c","l":"3"}],"b":[]}',
  },
  {
    in: '{"v":"hello world 1234"}',
    m: 'let key = "2b7e151628aed2a6abf7158809cf4f3c".decode("hex")\nlet vector = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff".decode("hex")\nroot.back = this.v.encrypt_aes("ctr", $key, $vector).decrypt_aes("ctr", $key, $vector).string()\nroot.cbc = "0123456789abcdef".encrypt_aes("cbc", $key, $vector).encode("hex")\nroot.ctr = this.v.encrypt_aes("ctr", $key, $vector).encode("hex")\nroot.gback = this.v.encrypt_aes("gcm", $key, $vector.slice(0, 12)).decrypt_aes("gcm", $key, $vector.slice(0, 12)).string()\nroot.gcm = this.v.encrypt_aes("gcm", $key, $vector.slice(0, 12)).encode("hex")\nroot.ofb = this.v.encrypt_aes("ofb", $key, $vector).encode("hex")',
    out: '{"back":"hello world 1234","cbc":"e89e8e43818fff59b386b0076aec1b48","ctr":"84e9b31ff7400bdf80be7255dbac92d0","gback":"hello world 1234","gcm":"6d6ddf41a33c50b8785220e9bb14a3b8b07b14f87e1dac49613917c31dee2cda","ofb":"84e9b31ff7400bdf80be7255dbac92d0"}',
  },
  {
    in: '{"v":"hello"}',
    m: 'root = this.v.encrypt_aes("cbc", "0123456789abcdef", "0123456789abcdef")',
    err: 'failed to execute map: failed assignment (line 1): field `this.v`: plaintext is not a multiple of the block size',
  },
  {
    in: '{"v":"hello"}',
    m: 'root = this.v.encrypt_aes("ctr", "short", "0123456789abcdef")',
    err: 'failed to parse mapping: line 1 char 62: crypto/aes: invalid key size 5',
  },
  {
    in: '{"v":"hello"}',
    m: 'root = this.v.encrypt_aes("xyz", "0123456789abcdef", "0123456789abcdef")',
    err: 'failed to parse mapping: line 1 char 73: unrecognized encryption type: xyz',
  },
  {
    in: '{"v":"hello"}',
    m: 'root = this.v.encrypt_aes("ctr", "0123456789abcdef", "0123")',
    err: 'failed to parse mapping: line 1 char 61: the key must match the initialisation vector size',
  },
  { in: '{"a":1}', m: 'root.a = json("a").from(0)\nroot.b = json("a").from_all()\nroot.c = batch_index().from(0)', out: '{"a":1,"b":[1],"c":0}' },
  {
    in: '{"n":-1}',
    m: 'root = this.n.uint32()',
    err: 'failed to execute map: failed assignment (line 1): signed integer value is negative and cannot be cast as an unsigned integer',
  },
  { in: '{"n":"-1"}', m: 'root = this.n.uint32()', err: 'failed to execute map: failed assignment (line 1): strconv.ParseUint: parsing "-1": invalid syntax' }, // ---- json_schema (gojsonschema's words, lowercased; user regexes on RE2). A multi-line error is Benthos' whole stderr text. Each
  // invalid document fails in one property: gojsonschema visits properties in Go's map order, which changes from run to run.
  { in: '{"foo":"bar"}', m: 'root = this.json_schema("""{"type":"object","properties":{"foo":{"type":"string"}}}""")', out: '{"foo":"bar"}' },
  {
    in: '{"foo":5}',
    m: 'root = this.json_schema("""{"type":"object","properties":{"foo":{"type":"string"}}}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: foo invalid type. expected: string, given: integer',
  },
  {
    in: '{"a":1}',
    m: 'root = this.a.json_schema("""{"type":"string"}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this.a`: (root) invalid type. expected: string, given: integer',
  },
  {
    in: '{"a":1.5}',
    m: 'root = this.a.json_schema("""{"type":"integer"}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this.a`: (root) invalid type. expected: integer, given: number',
  },
  {
    in: '{"a":"x"}',
    m: 'root = this.json_schema("""{"properties":{"a":{"type":["integer","null"]}}}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: a invalid type. expected: [integer,null], given: string',
  },
  {
    in: '{"id":0}',
    m: 'root = this.json_schema("""{"type":"object","required":["id","zz"]}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: (root) zz is required',
  },
  {
    in: '{"a":"C"}',
    m: 'root = this.json_schema("""{"properties":{"a":{"enum":["A","B"]}}}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: a a must be one of the following: "a", "b"',
  },
  {
    in: '"x"',
    m: 'root = this.json_schema("""{"const":"Y"}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: (root) (root) does not match: "y"',
  },
  {
    in: '{"code":"abc","id":"x١"}',
    m: 'root = this.json_schema("""{"properties":{"code":{"pattern":"^[a-z]+$"},"id":{"pattern":"^x\\\\d$"}}}""")',
    err: "failed to execute map: failed assignment (line 1): field `this`: id does not match pattern '^x\\d$'",
  },
  {
    in: '{"a":"B"}',
    m: 'root = this.json_schema("""{"properties":{"a":{"pattern":"^[A-Z]\\\\d$"}}}""")',
    err: "failed to execute map: failed assignment (line 1): field `this`: a does not match pattern '^[a-z]\\d$'",
  },
  {
    in: '{"a":"x1"}',
    m: 'root = this.json_schema("""{"properties":{"a":{"pattern":"(?P<n>x)\\\\z"}}}""")',
    err: "failed to execute map: failed assignment (line 1): field `this`: a does not match pattern '(?p<n>x)\\z'",
  },
  {
    in: '{"a":"x1"}',
    m: 'root = this.json_schema("""{"patternProperties":{"^a$":{"type":"integer"}}}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: a invalid type. expected: integer, given: string',
  },
  {
    in: '{"a":1,"b":2}',
    m: 'root = this.json_schema("""{"patternProperties":{"^a$":{"type":"integer"}},"additionalProperties":false}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: (root) badditional property b is not allowed',
  },
  {
    in: '{"a":"x1"}',
    m: 'root = this.json_schema("""{"properties":{"a":{"pattern":"(?=x)"}}}""")',
    err: 'failed to parse mapping: line 1 char 72: failed to parse json schema definition: pattern must be a valid regex',
  },
  {
    in: '{"a":1}',
    m: 'root = this.json_schema("""{"type":"object""")',
    err: 'failed to parse mapping: line 1 char 47: failed to parse json schema definition: unexpected EOF',
  },
  {
    in: '{"a":1,"s":"{"}',
    m: 'root.x = this.a.json_schema(this.s)',
    err: 'failed to execute map: failed assignment (line 1): failed to parse json schema definition: unexpected EOF',
  },
  {
    in: '{"a":1}',
    m: 'root.x = this.a.json_schema(this.s)',
    err: "failed to execute map: failed assignment (line 1): method 'json_schema': failed to extract input arg 'schema': wrong argument type, expected string, got null",
  },
  { in: '{"a":"é","s":"{\\"type\\":\\"string\\",\\"maxLength\\":1}"}', m: 'root.x = this.a.json_schema(this.s)', out: '{"x":"é"}' },
  {
    in: '{"a":[2,2]}',
    m: 'root = this.json_schema("""{"properties":{"a":{"uniqueItems":true,"minItems":3}}}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: a array must have at least 3 items\na array items[0,1] must be unique',
  },
  {
    in: '{"a":2}',
    m: 'root = this.json_schema("""{"properties":{"a":{"anyOf":[{"type":"string"},{"maximum":1}]}}}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: a must validate at least one schema (anyof)\na must be less than or equal to 1',
  },
  {
    in: '{"a":2}',
    m: 'root = this.json_schema("""{"properties":{"a":{"oneOf":[{"type":"string"},{"maximum":1}]}}}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: a must validate one and only one schema (oneof)\na must be less than or equal to 1',
  },
  {
    in: '{"a":2}',
    m: 'root = this.json_schema("""{"properties":{"a":{"exclusiveMinimum":2,"multipleOf":3}}}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: a must be a multiple of 3\na must be greater than 2',
  },
  {
    in: '{"a":2}',
    m: 'root = this.json_schema("""{"if":{"properties":{"a":{"type":"integer"}}},"then":{"required":["c"]}}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: (root) must validate "then" as "if" was valid\n(root) c is required',
  },
  {
    in: '{"a":2}',
    m: 'root = this.json_schema("""{"dependencies":{"a":["b"]},"minProperties":2}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: (root) has a dependency on b\n(root) must have at least 2 properties',
  },
  {
    in: '{"a":"2"}',
    m: 'root = this.json_schema("""{"properties":{"a":{"format":"email"}}}""")',
    err: "failed to execute map: failed assignment (line 1): field `this`: a does not match format 'email'",
  },
  {
    in: '{"b":2}',
    m: 'root = this.json_schema("""{"properties":{"b":{"not":{"type":"integer"}}}}""")',
    err: 'failed to execute map: failed assignment (line 1): field `this`: b must not validate the schema (not)',
  },
  {
    in: '{"a":1}',
    m: 'root = this.bloblang("root = this.a.json_schema(\\"{\\\\\\"type\\\\\\":\\\\\\"string\\\\\\"}\\")")',
    err: 'failed to execute map: failed assignment (line 1): field `this.a`: (root) invalid type. expected: string, given: integer',
  },
];

/** One line through a mapping, printed as `engine blobl` prints it (cli/blobl.ts). */
function blobl(line: string, mapping: string): { out?: string; err?: string } {
  let m;
  try {
    m = compileMapping(mapping);
  } catch (e) {
    if (e instanceof InterpError) return { err: `failed to parse mapping: ${e.reason}` };
    throw e;
  }
  const msg = new Message(line);
  try {
    const r = m.exec(msg, { batch: [msg], index: 0 });
    const root = r.root === undefined ? line : r.root;
    return { out: typeof root === 'string' ? root : Buffer.isBuffer(root) ? root.toString() : stringifyJson(root) };
  } catch (e) {
    return { err: `failed to execute map: ${errorMessage(e)}` };
  }
}

describe('the mapping language answers as Benthos v4.51 (observed with benthos blobl)', () => {
  for (const row of ROWS) {
    it(`${row.in} | ${row.m.replaceAll('\n', '; ')}`, () => {
      const got = blobl(row.in, row.m);
      if (row.out !== undefined) {
        assert.equal(got.err, undefined);
        if (row.json) assert.deepEqual(JSON.parse(got.out!), JSON.parse(row.out));
        else assert.equal(got.out, row.out);
      } else {
        assert.ok(got.err !== undefined, `expected an error, got ${got.out}`);
        // Parse errors: the same words; Benthos' position format (line L char C) is not compared.
        assert.equal(got.err, row.err!.replace(/^failed to parse mapping: line \d+ char \d+: /, 'failed to parse mapping: '));
      }
    });
  }
});
