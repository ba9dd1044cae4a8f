#!/usr/bin/env node
import { ConfigError, SvcError, errorMessage } from '../errors.js';
import { HELP, parseArgs } from './args.js';
import { blobl } from './blobl.js';
import { echo } from './echo.js';
import { lint } from './lint.js';
import { list } from './list.js';
import { engineVersion, run } from './run.js';
import { printIssues } from './setup.js';

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.version) {
    process.stdout.write(`${engineVersion()}\n`);
    return 0;
  }
  if (args.help) {
    process.stdout.write(HELP);
    return 0;
  }
  switch (args.command) {
    case 'lint':
      return lint(args);
    case 'list':
      return list(args);
    case 'echo':
      return echo(args);
    case 'blobl':
      return blobl(args);
    default:
      if (!args.config && args.positional.length === 0) {
        process.stderr.write(HELP);
        return 1;
      }
      args.config ??= args.positional[0];
      return run(args);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Everything is closed and delivered: exit even if a client library left a timer or a
    // socket behind (kafkajs after a broker outage), after a moment for the last writes.
    setTimeout(() => process.exit(code), 1000).unref();
  },
  (err: unknown) => {
    if (err instanceof ConfigError) printIssues(err);
    else if (err instanceof SvcError) process.stderr.write(`engine: ${err.message}\n`);
    else process.stderr.write(`engine: unexpected error: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  },
);
