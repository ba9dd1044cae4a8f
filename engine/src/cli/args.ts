import { ErrorCode, SvcError } from '../errors.js';
import { BUILTIN_COMMANDS as COMMANDS } from '../plugin/commands.js';

/** Parsed command line: `engine [command] [flags] [files...]`. */
export interface Args {
  command: string;
  config?: string;
  resources: string[];
  sets: string[];
  plugins: string[];
  logLevel?: string;
  format?: string;
  /** `engine list --format markdown --out DIR`: one page per component kind, and an index. */
  out?: string;
  file?: string;
  help: boolean;
  version: boolean;
  positional: string[];
  /** `engine streams -o FILE`: the process-wide sections (http, logger, metrics, tracer). */
  observability?: string;
  /** `engine streams`: the secret the streams REST API requires (or SVC_STREAMS_API_SECRET). */
  apiSecret?: string;
  /** `engine streams --no-api`: no REST API. */
  noApi: boolean;
  /** `-e FILE`: dotenv files read into the environment before the config (repeatable, globs). */
  envFiles: string[];
  /** `-w`: reload the config when its file (or a -r file) changes, draining the old stream. */
  watch: boolean;
  /** `--chilled`: run despite lint errors (unknown fields), logging them as warnings. */
  chilled: boolean;
  /** `engine create --small`: only input, pipeline and output, no advanced fields. */
  small: boolean;
}

/** Parses argv (without node and the script). Flags take `--flag value` or `--flag=value`. */
export function parseArgs(argv: string[]): Args {
  const a: Args = {
    command: 'run',
    resources: [],
    sets: [],
    plugins: [],
    help: false,
    version: false,
    positional: [],
    noApi: false,
    envFiles: [],
    watch: false,
    chilled: false,
    small: false,
  };
  let i = 0;
  if (argv[0] !== undefined && COMMANDS.has(argv[0])) {
    a.command = argv[0] === 'help' ? 'run' : argv[0];
    if (argv[0] === 'help') a.help = true;
    i = 1;
  }
  for (; i < argv.length; i++) {
    let arg = argv[i]!;
    let inline: string | undefined;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      inline = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = argv[++i];
      if (v === undefined) throw new SvcError(ErrorCode.Usage, `${arg} needs a value (see engine --help)`);
      return v;
    };
    switch (arg) {
      case '-c':
      case '--config':
        a.config = value();
        break;
      case '-r':
      case '--resources':
        a.resources.push(value());
        break;
      case '-s':
      case '--set':
        a.sets.push(value());
        break;
      case '--plugin':
        a.plugins.push(value());
        break;
      case '--log.level':
        a.logLevel = value();
        break;
      case '--format':
        a.format = value();
        break;
      case '--out':
        a.out = value();
        break;
      case '-f':
      case '--file':
        a.file = value();
        break;
      case '-o':
      case '--observability':
        a.observability = value();
        break;
      case '--api-secret':
        a.apiSecret = value();
        break;
      case '--no-api':
        a.noApi = true;
        break;
      case '-e':
      case '--env-file':
        a.envFiles.push(value());
        break;
      case '-w':
      case '--watcher':
        a.watch = true;
        break;
      case '--chilled':
        a.chilled = true;
        break;
      case '--small':
        a.small = true;
        break;
      case '-h':
      case '--help':
        a.help = true;
        break;
      case '-v':
      case '--version':
        a.version = true;
        break;
      default:
        if (arg.startsWith('-')) throw new SvcError(ErrorCode.Usage, `unknown flag ${arg} (see engine --help)`);
        a.positional.push(arg);
    }
  }
  return a;
}

export const HELP = `engine — run stream pipelines written in the Benthos / Tyk Streams YAML dialect

Usage:
  engine -c pipeline.yaml            run a stream (same as: engine run -c pipeline.yaml)
  engine lint FILE|GLOB|DIR/...      check configs (DIR/...: every .yaml/.yml under DIR); file:line:col per problem
  engine list [-c FILE] [--format text|json|jsonschema|markdown] [--out DIR]
                                     list the components (with their fields as JSON Schema,
                                     or as a markdown reference: one page per kind in DIR)
  engine echo -c pipeline.yaml       print the config normalised, with every default filled in
  engine blobl 'MAPPING'             run a mapping on each line of stdin (or -f FILE for the mapping)
  engine blobl server [--host H] [-p PORT] [-m FILE] [-i FILE] [-w]
                                     a page to write a mapping against an input (POST /execute)
  engine test [PATH...]              run the configs' unit tests (their tests: section or their
                                     NAME_benthos_test.yaml); DIR/... recurses; exit 1 on a failure
  engine create [INPUTS/PROCESSORS/OUTPUTS] [--small]
                                     print a config with those components at their defaults,
                                     e.g. engine create stdin/mapping,log/stdout
  engine streams [-o obs.yaml] FILE...
                                     run several streams (ids from file names) with a REST API
                                     at /streams (Bearer --api-secret or SVC_STREAMS_API_SECRET)

Flags:
  -c, --config FILE        the stream config (YAML)
  -r, --resources FILE     a resources file (cache_resources, processor_resources, ...);
                           repeatable; in streams mode every stream shares them
  -s, --set PATH=VALUE     override a config field, e.g. -s input.generate.count=10; repeatable
      --plugin MODULE      load a custom plugin module (.js or .ts); repeatable
      --log.level LEVEL    override logger.level (OFF, ERROR, WARN, INFO, DEBUG, TRACE)
  -e, --env-file FILE      read environment variables from a dotenv file first; repeatable
  -w, --watcher            reload the config when it (or a -r file) changes; the old stream
                           drains first. A config that does not load is logged and skipped
      --chilled            run despite lint errors (unknown fields), logging them as warnings
  -h, --help               this help
  -v, --version            the version

Config: input, pipeline (threads, processors), output, logger, metrics, tracer, input_resources,
processor_resources, output_resources, cache_resources, rate_limit_resources, shutdown_timeout, http, plugins. \${VAR} and \${VAR:default} are replaced
by environment variables. Try: engine -c configs/quickstart.yaml
`;
