import { f, type Infer } from '../config/spec.js';
import { FileLogSink, type LogFileConfig } from './log-file.js';

export const LOG_LEVELS = ['OFF', 'NONE', 'FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE', 'ALL'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

const SEVERITY: Record<string, number> = { OFF: 0, NONE: 0, FATAL: 1, ERROR: 2, WARN: 3, INFO: 4, DEBUG: 5, TRACE: 6, ALL: 7 };

export const loggerSpec = f.object({
  level: f.enum(LOG_LEVELS).default('INFO').describe('The minimum level of log lines to print.'),
  format: f
    .enum(['logfmt', 'json'] as const)
    .default('logfmt')
    .describe('The format of each log line.'),
  add_timestamp: f.bool().default(false).describe('Whether to add a timestamp to each line.'),
  level_name: f.string().default('level').advanced().describe('The key of the level field.'),
  message_name: f.string().default('msg').advanced().describe('The key of the message field.'),
  timestamp_name: f.string().default('time').advanced().describe('The key of the timestamp field.'),
  static_fields: f.map(f.string()).default({ '@service': 'svc' }).describe('Fields added to every line.'),
  file: f
    .object({
      path: f.string().default('').describe('A file to append log lines to instead of stderr (created when missing); empty for stderr.'),
      rotate: f.bool().default(false).describe('Rotate the file at 10 MB, keeping one gzipped backup (as Benthos).'),
      rotate_max_age_days: f.int().default(0).describe('Delete a backup older than this many days; 0 keeps it until the next rotation replaces it.'),
    })
    .advanced()
    .describe('Where log lines go when not to stderr.'),
});
export type LoggerConfig = Infer<typeof loggerSpec>;

export type LogFields = Record<string, unknown>;

/** A structured logger. Every component gets one carrying its `path` and `label`. */
export interface Logger {
  fatal(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  trace(msg: string, fields?: LogFields): void;
  /** True when lines of this level are printed: skip building costly fields otherwise. */
  enabled(level: LogLevelName): boolean;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

export interface LogSink {
  write(line: string): void;
}

const stderrSink: LogSink = { write: (line) => process.stderr.write(line) };

/** One sink per log file in a thread: every logger of the process (streams, the CLI) shares it. */
const fileSinks = new Map<string, FileLogSink>();
function fileSink(conf: LogFileConfig): LogSink {
  let s = fileSinks.get(conf.path);
  if (s === undefined) fileSinks.set(conf.path, (s = new FileLogSink(conf)));
  return s;
}

function logfmtValue(v: unknown): string {
  const s = typeof v === 'string' ? v : v instanceof Error ? v.message : (JSON.stringify(v) ?? String(v));
  return /^[^\s"=\\]+$/.test(s) ? s : JSON.stringify(s);
}

class StructuredLogger implements Logger {
  constructor(
    private readonly conf: LoggerConfig,
    private readonly threshold: number,
    private readonly fields: LogFields,
    private readonly sink: LogSink,
  ) {}

  enabled(level: LogLevelName): boolean {
    return SEVERITY[level]! <= this.threshold;
  }

  child(fields: LogFields): Logger {
    return new StructuredLogger(this.conf, this.threshold, { ...this.fields, ...fields }, this.sink);
  }

  fatal(msg: string, fields?: LogFields): void {
    this.log('FATAL', msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.log('ERROR', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.log('WARN', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.log('INFO', msg, fields);
  }
  debug(msg: string, fields?: LogFields): void {
    this.log('DEBUG', msg, fields);
  }
  trace(msg: string, fields?: LogFields): void {
    this.log('TRACE', msg, fields);
  }

  private log(level: LogLevelName, msg: string, extra?: LogFields): void {
    if (SEVERITY[level]! > this.threshold) return;
    const c = this.conf;
    const record: LogFields = {};
    if (c.add_timestamp) record[c.timestamp_name] = new Date().toISOString();
    record[c.level_name] = level.toLowerCase();
    record[c.message_name] = msg;
    Object.assign(record, c.static_fields, this.fields, extra);
    if (c.format === 'json') {
      this.sink.write(JSON.stringify(record, (_k, v: unknown) => (v instanceof Error ? v.message : v)) + '\n');
    } else {
      let line = '';
      for (const k in record) {
        const v = record[k];
        if (v === undefined) continue;
        line += (line ? ' ' : '') + k + '=' + logfmtValue(v);
      }
      this.sink.write(line + '\n');
    }
  }
}

/** Builds the root logger from the `logger` section. Lines go to stderr unless a sink is given. */
export function createLogger(conf: Partial<LoggerConfig> = {}, sink?: LogSink): Logger {
  const full: LoggerConfig = {
    level: 'INFO',
    format: 'logfmt',
    add_timestamp: false,
    level_name: 'level',
    message_name: 'msg',
    timestamp_name: 'time',
    static_fields: { '@service': 'svc' },
    ...conf,
    file: { path: '', rotate: false, rotate_max_age_days: 0, ...conf.file },
  };
  const level = String(full.level).toUpperCase();
  return new StructuredLogger(full, SEVERITY[level] ?? 4, {}, sink ?? (full.file.path !== '' ? fileSink(full.file) : stderrSink));
}

/** A logger that prints nothing. */
export const silentLogger: Logger = createLogger({ level: 'OFF' });
