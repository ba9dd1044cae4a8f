import { f, registerProcessor } from '@svc/engine';
import { goValue } from './go-value.js';
import { parseRfc3164 } from './syslog-rfc3164.js';
import { parseRfc5424 } from './syslog-rfc5424.js';
import { checkZone } from './syslog-time.js';

const spec = f.object({
  format: f.enum(['syslog_rfc5424', 'syslog_rfc3164'] as const).describe('A common log format to parse.'),
  best_effort: f.bool().default(true).advanced().describe('Still returns partially parsed messages even if an error occurs.'),
  allow_rfc3339: f.bool().default(true).advanced().describe('Also accept timestamps in rfc3339 format while parsing. Applicable to format `syslog_rfc3164`.'),
  default_year: f
    .string()
    .default('current')
    .advanced()
    .describe(
      'Sets the strategy used to set the year for rfc3164 timestamps. Applicable to format `syslog_rfc3164`. When set to `current` the current year will be set, when set to an integer that value will be used. Leave this field empty to not set a default year at all.',
    ),
  default_timezone: f
    .string()
    .default('UTC')
    .advanced()
    .describe(
      "Sets the strategy to decide the timezone for rfc3164 timestamps. Applicable to format `syslog_rfc3164`. An IANA zone name (Go's time.LoadLocation).",
    ),
  codec: f.string().optional().advanced().describe('Deprecated: the only codec is `json`.'),
});

/**
 * `parse_log`: syslog lines (RFC 5424, RFC 3164) into objects, with the fields, values and
 * errors of Benthos' parse_log (influxdata/go-syslog v3). A line that does not parse is flagged
 * with the parser's error and passed on unchanged; Benthos does so whatever `best_effort` says.
 */
registerProcessor('parse_log', {
  summary: 'Parses common log formats (syslog RFC 5424 and RFC 3164) into structured data. This is easier and often much faster than `grok`.',
  description:
    '`syslog_rfc5424` gives `message`, `timestamp` (RFC 3339), `facility`, `severity`, `priority`, `version`, `hostname`, `procid`, `appname`, `msgid` and `structureddata`; `syslog_rfc3164` the same but `version` and `structureddata`, with `appname` from the tag and `procid` from the bracketed part after it.',
  config: spec,
  examples: ['pipeline:\n  processors:\n    - parse_log:\n        format: syslog_rfc5424\n'],
  factory: (conf) => {
    let year = 0;
    if (conf.default_year === 'current') year = new Date().getUTCFullYear();
    else if (conf.default_year !== '') {
      if (!/^[+-]?\d+$/.test(conf.default_year))
        throw new Error(
          `failed to convert year ${conf.default_year} into integer:  strconv.Atoi: parsing ${JSON.stringify(conf.default_year)}: invalid syntax`,
        );
      year = Number(conf.default_year);
    }
    const zone = conf.default_timezone;
    if (zone !== '' && zone !== 'UTC' && zone !== 'Local') {
      try {
        checkZone(zone);
      } catch {
        throw new Error(`failed to lookup timezone UTC - unknown time zone ${zone}`);
      }
    }
    const options = { rfc3339: conf.allow_rfc3339, year, zone: zone === 'Local' ? Intl.DateTimeFormat().resolvedOptions().timeZone : zone };
    // the RFC 5424 parser gives its fields in Go's order already
    const parse = conf.format === 'syslog_rfc5424' ? parseRfc5424 : (b: Buffer) => goValue(parseRfc3164(b, options));
    return {
      process(batch) {
        for (const m of batch) {
          try {
            m.setJson(parse(m.content));
          } catch (err) {
            m.setError(err);
          }
        }
        return [batch];
      },
    };
  },
});
