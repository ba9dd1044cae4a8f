import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runEngine, stdinPipeline } from './cli-run.js';

// Expected outputs are what Benthos v4.51 printed for the same config and input:
//   F=<format> Y=2020 TZ=<zone> /tmp/peers/bin/benthos -c <this config> < <these lines>
const config = (format: string, zone = 'UTC') =>
  stdinPipeline(`    - parse_log:
        format: ${format}
        default_year: "2020"
        default_timezone: ${zone}
    - mapping: 'root = if errored() { error() + " | " + content().string() } else { this }'`);

async function parsed(format: string, input: string[], zone?: string): Promise<string[]> {
  const r = await runEngine(config(format, zone), input.join('\n') + '\n');
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.split('\n').slice(0, -1);
}

describe('parse_log processor (engine CLI, against Benthos v4.51)', () => {
  it("parses syslog_rfc5424 lines and flags the broken ones with go-syslog's error and column", async () => {
    const input = [
      '<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"] An application event log entry...',
      "<34>1 2003-10-11T22:14:15.000000Z mymachine.example.com su - ID47 - 'su root' failed for lonvick on /dev/pts/8",
      "<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - - %% It's time to make the do-nuts.",
      '<165>1 2003-10-11T22:14:15+00:00 host app proc msg [a@1 k="v\\"q\\]w\\\\x"][b@2] body',
      '<165>1 - - - - - -',
      '<165>1 - - - - -',
      '<165>1 - - - - - - ',
      '<165>12 - h a p m - x',
      '<165>1000 - h a p m - x',
      '<165>0 - h a p m - x',
      '<165>1x - h a p m - x',
      '<165>1 2003-13-11T22:14:15Z h a p m - x',
      '<165>1 2003-02-30T22:14:15Z h a p m - x',
      '<165>1 2003-10-11T22:14:15.1234567Z h a p m - x',
      '<165>1 2003-10-11T22:14:15 h a p m - x',
      '<165>1 - h a p m [a@1 k="v\\x"] x',
      '<165>1 - h a p m [a@1 k="v]"] x',
      '<165>1 - h a p m [a@1][a@1] x',
      '<165>1 - h a p m [a@1 k=v] x',
      '<165>1 - h a p m [a@1 k="v"]x',
      '<165>1 - h a p m [a@1 k="v"',
      '<165>1 - h a p m [a@1  k="v"] x',
      '<165>1 - h a p m [] x',
      '<165>1 - h a p m x',
      '<165>1 - h a p m',
      '<165>1 - h a p',
      '<165>1 - h  a p m - x',
      '<165>1 -  h a p m - x',
      '<165>1 2003-10-11T22:14:15.003Z h a p m - x',
      '<165>1 2003-10-11T22:14:15.Z h a p m - x',
      '<192>1 - h a p m - x',
    ];
    assert.deepEqual(await parsed('syslog_rfc5424', input), [
      '{"appname":"evntslog","facility":20,"hostname":"mymachine.example.com","message":"An application event log entry...","msgid":"ID47","priority":165,"severity":5,"structureddata":{"exampleSDID@32473":{"eventID":"1011","eventSource":"Application","iut":"3"}},"timestamp":"2003-10-11T22:14:15.003Z","version":1}',
      '{"appname":"su","facility":4,"hostname":"mymachine.example.com","message":"\'su root\' failed for lonvick on /dev/pts/8","msgid":"ID47","priority":34,"severity":2,"timestamp":"2003-10-11T22:14:15Z","version":1}',
      '{"appname":"myproc","facility":20,"hostname":"192.0.2.1","message":"%% It\'s time to make the do-nuts.","priority":165,"procid":"8710","severity":5,"timestamp":"2003-08-24T05:14:15.000003-07:00","version":1}',
      '{"appname":"app","facility":20,"hostname":"host","message":"body","msgid":"msg","priority":165,"procid":"proc","severity":5,"structureddata":{"a@1":{"k":"v\\"q]w\\\\x"},"b@2":{}},"timestamp":"2003-10-11T22:14:15Z","version":1}',
      '{"facility":20,"priority":165,"severity":5,"version":1}',
      'expecting a msgid (from 1 to max 32 US-ASCII characters) or a nil value [col 16] | <165>1 - - - - -',
      '{"facility":20,"priority":165,"severity":5,"version":1}',
      '{"appname":"a","facility":20,"hostname":"h","message":"x","msgid":"m","priority":165,"procid":"p","severity":5,"version":12}',
      'expecting a version value in the range 1-999 [col 8] | <165>1000 - h a p m - x',
      'expecting a version value in the range 1-999 [col 5] | <165>0 - h a p m - x',
      'parsing error [col 6] | <165>1x - h a p m - x',
      'expecting a RFC3339MICRO timestamp or a nil value [col 13] | <165>1 2003-13-11T22:14:15Z h a p m - x',
      'parsing time "2003-02-30T22:14:15Z": day out of range [col 27] | <165>1 2003-02-30T22:14:15Z h a p m - x',
      'expecting a RFC3339MICRO timestamp or a nil value [col 33] | <165>1 2003-10-11T22:14:15.1234567Z h a p m - x',
      'expecting a RFC3339MICRO timestamp or a nil value [col 26] | <165>1 2003-10-11T22:14:15 h a p m - x',
      'expecting chars `]`, `"`, and `\\` to be escaped within param value [col 27] | <165>1 - h a p m [a@1 k="v\\x"] x',
      'expecting chars `]`, `"`, and `\\` to be escaped within param value [col 26] | <165>1 - h a p m [a@1 k="v]"] x',
      'duplicate structured data element id [col 26] | <165>1 - h a p m [a@1][a@1] x',
      'expecting a structured data parameter (`key="value"`, both part from 1 to max 32 US-ASCII characters; key cannot contain `=`, ` `, `]`, and `"`, while value cannot contain `]`, backslash, and `"` unless escaped) [col 24] | <165>1 - h a p m [a@1 k=v] x',
      'expecting a structured data section containing one or more elements (`[id( key="value")*]+`) or a nil value [col 28] | <165>1 - h a p m [a@1 k="v"]x',
      'expecting a structured data parameter (`key="value"`, both part from 1 to max 32 US-ASCII characters; key cannot contain `=`, ` `, `]`, and `"`, while value cannot contain `]`, backslash, and `"` unless escaped) [col 27] | <165>1 - h a p m [a@1 k="v"',
      'expecting a structured data parameter (`key="value"`, both part from 1 to max 32 US-ASCII characters; key cannot contain `=`, ` `, `]`, and `"`, while value cannot contain `]`, backslash, and `"` unless escaped) [col 22] | <165>1 - h a p m [a@1  k="v"] x',
      'expecting a structured data element id (from 1 to max 32 US-ASCII characters; except `=`, ` `, `]`, and `"` [col 18] | <165>1 - h a p m [] x',
      'expecting a structured data section containing one or more elements (`[id( key="value")*]+`) or a nil value [col 17] | <165>1 - h a p m x',
      'expecting a msgid (from 1 to max 32 US-ASCII characters) or a nil value [col 16] | <165>1 - h a p m',
      'expecting a procid (from 1 to max 128 US-ASCII characters) or a nil value [col 14] | <165>1 - h a p',
      'expecting an app-name (from 1 to max 48 US-ASCII characters) or a nil value [col 11] | <165>1 - h  a p m - x',
      'expecting an hostname (from 1 to max 255 US-ASCII characters) or a nil value [col 9] | <165>1 -  h a p m - x',
      '{"appname":"a","facility":20,"hostname":"h","message":"x","msgid":"m","priority":165,"procid":"p","severity":5,"timestamp":"2003-10-11T22:14:15.003Z","version":1}',
      'expecting a RFC3339MICRO timestamp or a nil value [col 27] | <165>1 2003-10-11T22:14:15.Z h a p m - x',
      'expecting a priority value in the range 1-191 or equal to 0 [col 3] | <192>1 - h a p m - x',
    ]);
  });

  const rfc3164 = [
    "<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8",
    '<13>Feb  5 17:32:18 10.0.0.99 myproc[10]: Use the BFG!',
    '<13>Feb  5 17:32:18 host foo:bar baz',
    '<13>Feb  5 17:32:18 host foo bar',
    '<13>2003-10-11T22:14:15.003Z host app: x',
    '<13>2003-10-11T22:14:15+02:00 host app[a b]: x',
    '<192>Feb  5 17:32:18 host x',
    'Feb  5 17:32:18 host x',
    '<13>Feb 30 17:32:18 host x',
    '<13>Fob  5 17:32:18 host x',
    '<13>Feb  5 17:32:18 host',
    '<13>Feb  5 17:32:18 host ',
    '<1>Feb  5 17:32:18 host a\ttab',
    '<01>Feb  5 17:32:18 host x',
    '<13>Feb  5 17:32:18  x',
    '<13>xyz host x',
    '<13>Feb  5 17:32:18x host x',
    '<13>Feb 29 17:32:18 host leap',
    '<13>2003-02-29T22:14:15Z host x',
    '<13>2003-10-11T22:14:15 host x',
    '<13>Feb  5 17:32:18 host a[12]b: c',
    '<13>Feb  5 17:32:18 host a[12]: c',
    '<13>Feb  5 17:32:18 host -: c',
    '<13>Feb  5 17:32:18 host abcdefghijabcdefghijabcdefghijabc: c',
    '<13>Feb  5 17:32:18 host a:',
    '<13>Feb  5 17:32:18 host a: ',
    '<1a>Feb  5 17:32:18 host x',
    '<>Feb  5 17:32:18 host x',
    '<13>Feb  5 17:32:18 host[1]: x',
    '<13>Dec 31 23:32:18 host newyear',
  ];
  it('parses syslog_rfc3164 lines in UTC with the default year', async () => {
    assert.deepEqual(await parsed('syslog_rfc3164', rfc3164), [
      '{"appname":"su","facility":4,"hostname":"mymachine","message":"\'su root\' failed for lonvick on /dev/pts/8","priority":34,"severity":2,"timestamp":"2020-10-11T22:14:15Z"}',
      '{"appname":"myproc","facility":1,"hostname":"10.0.0.99","message":"Use the BFG!","priority":13,"procid":"10","severity":5,"timestamp":"2020-02-05T17:32:18Z"}',
      '{"appname":"foo","facility":1,"hostname":"host","message":"foo:bar baz","priority":13,"severity":5,"timestamp":"2020-02-05T17:32:18Z"}',
      '{"facility":1,"hostname":"host","message":"foo bar","priority":13,"severity":5,"timestamp":"2020-02-05T17:32:18Z"}',
      'expecting a Stamp or a RFC3339 timestamp [col 23] | <13>2003-10-11T22:14:15.003Z host app: x',
      '{"appname":"app","facility":1,"hostname":"host","message":"x","priority":13,"procid":"a b","severity":5,"timestamp":"2003-10-11T22:14:15+02:00"}',
      'expecting a priority value in the range 1-191 or equal to 0 [col 3] | <192>Feb  5 17:32:18 host x',
      'expecting a priority value within angle brackets [col 0] | Feb  5 17:32:18 host x',
      'parsing time "Feb 30 17:32:18": day out of range [col 19] | <13>Feb 30 17:32:18 host x',
      'expecting a Stamp timestamp [col 5] | <13>Fob  5 17:32:18 host x',
      'expecting an hostname (from 1 to max 255 US-ASCII characters) [col 24] | <13>Feb  5 17:32:18 host',
      'expecting an alphanumeric tag (max 32 characters) [col 25] | <13>Feb  5 17:32:18 host ',
      '{"facility":0,"hostname":"host","priority":1,"severity":1,"timestamp":"2020-02-05T17:32:18Z"}',
      'expecting a priority value in the range 1-191 or equal to 0 [col 2] | <01>Feb  5 17:32:18 host x',
      'expecting an hostname (from 1 to max 255 US-ASCII characters) [col 20] | <13>Feb  5 17:32:18  x',
      'expecting a Stamp timestamp [col 4] | <13>xyz host x',
      '{"facility":1,"priority":13,"severity":5}',
      '{"facility":1,"hostname":"host","message":"leap","priority":13,"severity":5,"timestamp":"2020-02-29T17:32:18Z"}',
      'parsing time "2003-02-29T22:14:15Z": day out of range [col 24] | <13>2003-02-29T22:14:15Z host x',
      'expecting a Stamp or a RFC3339 timestamp [col 23] | <13>2003-10-11T22:14:15 host x',
      '{"appname":"a","facility":1,"hostname":"host","message":"12]b: c","priority":13,"procid":"12","severity":5,"timestamp":"2020-02-05T17:32:18Z"}',
      '{"appname":"a","facility":1,"hostname":"host","message":"c","priority":13,"procid":"12","severity":5,"timestamp":"2020-02-05T17:32:18Z"}',
      '{"facility":1,"hostname":"host","message":"c","priority":13,"severity":5,"timestamp":"2020-02-05T17:32:18Z"}',
      '{"facility":1,"hostname":"host","message":"abcdefghijabcdefghijabcdefghijabc: c","priority":13,"severity":5,"timestamp":"2020-02-05T17:32:18Z"}',
      '{"appname":"a","facility":1,"hostname":"host","message":"a:","priority":13,"severity":5,"timestamp":"2020-02-05T17:32:18Z"}',
      '{"appname":"a","facility":1,"hostname":"host","message":"a: ","priority":13,"severity":5,"timestamp":"2020-02-05T17:32:18Z"}',
      'expecting a priority value in the range 1-191 or equal to 0 [col 2] | <1a>Feb  5 17:32:18 host x',
      'expecting a priority value in the range 1-191 or equal to 0 [col 1] | <>Feb  5 17:32:18 host x',
      '{"facility":1,"hostname":"host[1]:","message":"x","priority":13,"severity":5,"timestamp":"2020-02-05T17:32:18Z"}',
      '{"facility":1,"hostname":"host","message":"newyear","priority":13,"severity":5,"timestamp":"2020-12-31T23:32:18Z"}',
    ]);
  });

  it('shows syslog_rfc3164 timestamps in default_timezone', async () => {
    assert.deepEqual(await parsed('syslog_rfc3164', rfc3164, 'America/New_York'), [
      '{"appname":"su","facility":4,"hostname":"mymachine","message":"\'su root\' failed for lonvick on /dev/pts/8","priority":34,"severity":2,"timestamp":"2020-10-11T18:14:15-04:00"}',
      '{"appname":"myproc","facility":1,"hostname":"10.0.0.99","message":"Use the BFG!","priority":13,"procid":"10","severity":5,"timestamp":"2020-02-05T12:32:18-05:00"}',
      '{"appname":"foo","facility":1,"hostname":"host","message":"foo:bar baz","priority":13,"severity":5,"timestamp":"2020-02-05T12:32:18-05:00"}',
      '{"facility":1,"hostname":"host","message":"foo bar","priority":13,"severity":5,"timestamp":"2020-02-05T12:32:18-05:00"}',
      'expecting a Stamp or a RFC3339 timestamp [col 23] | <13>2003-10-11T22:14:15.003Z host app: x',
      '{"appname":"app","facility":1,"hostname":"host","message":"x","priority":13,"procid":"a b","severity":5,"timestamp":"2003-10-11T22:14:15+02:00"}',
      'expecting a priority value in the range 1-191 or equal to 0 [col 3] | <192>Feb  5 17:32:18 host x',
      'expecting a priority value within angle brackets [col 0] | Feb  5 17:32:18 host x',
      'parsing time "Feb 30 17:32:18": day out of range [col 19] | <13>Feb 30 17:32:18 host x',
      'expecting a Stamp timestamp [col 5] | <13>Fob  5 17:32:18 host x',
      'expecting an hostname (from 1 to max 255 US-ASCII characters) [col 24] | <13>Feb  5 17:32:18 host',
      'expecting an alphanumeric tag (max 32 characters) [col 25] | <13>Feb  5 17:32:18 host ',
      '{"facility":0,"hostname":"host","priority":1,"severity":1,"timestamp":"2020-02-05T12:32:18-05:00"}',
      'expecting a priority value in the range 1-191 or equal to 0 [col 2] | <01>Feb  5 17:32:18 host x',
      'expecting an hostname (from 1 to max 255 US-ASCII characters) [col 20] | <13>Feb  5 17:32:18  x',
      'expecting a Stamp timestamp [col 4] | <13>xyz host x',
      '{"facility":1,"priority":13,"severity":5}',
      '{"facility":1,"hostname":"host","message":"leap","priority":13,"severity":5,"timestamp":"2020-02-29T12:32:18-05:00"}',
      'parsing time "2003-02-29T22:14:15Z": day out of range [col 24] | <13>2003-02-29T22:14:15Z host x',
      'expecting a Stamp or a RFC3339 timestamp [col 23] | <13>2003-10-11T22:14:15 host x',
      '{"appname":"a","facility":1,"hostname":"host","message":"12]b: c","priority":13,"procid":"12","severity":5,"timestamp":"2020-02-05T12:32:18-05:00"}',
      '{"appname":"a","facility":1,"hostname":"host","message":"c","priority":13,"procid":"12","severity":5,"timestamp":"2020-02-05T12:32:18-05:00"}',
      '{"facility":1,"hostname":"host","message":"c","priority":13,"severity":5,"timestamp":"2020-02-05T12:32:18-05:00"}',
      '{"facility":1,"hostname":"host","message":"abcdefghijabcdefghijabcdefghijabc: c","priority":13,"severity":5,"timestamp":"2020-02-05T12:32:18-05:00"}',
      '{"appname":"a","facility":1,"hostname":"host","message":"a:","priority":13,"severity":5,"timestamp":"2020-02-05T12:32:18-05:00"}',
      '{"appname":"a","facility":1,"hostname":"host","message":"a: ","priority":13,"severity":5,"timestamp":"2020-02-05T12:32:18-05:00"}',
      'expecting a priority value in the range 1-191 or equal to 0 [col 2] | <1a>Feb  5 17:32:18 host x',
      'expecting a priority value in the range 1-191 or equal to 0 [col 1] | <>Feb  5 17:32:18 host x',
      '{"facility":1,"hostname":"host[1]:","message":"x","priority":13,"severity":5,"timestamp":"2020-02-05T12:32:18-05:00"}',
      '{"facility":1,"hostname":"host","message":"newyear","priority":13,"severity":5,"timestamp":"2020-12-31T18:32:18-05:00"}',
    ]);
  });
});
