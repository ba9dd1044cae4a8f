#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { ConfigError, SvcError, errorMessage } from '../errors.js';
import { BUILTIN_COMMANDS, asksForHelp, pluginCommand, pluginCommands, type CommandSpec } from '../plugin/commands.js';
import { BUILTIN_PLUGINS, loadPlugins } from '../plugin/load-plugins.js';
import { registerCoreComponents } from '../runtime/core-components.js';
import { absoluteModule } from '../streams/stream-builder.js';
import { HELP, parseArgs } from './args.js';
import { blobl } from './blobl.js';
import { blobServer } from './blobl-server.js';
import { create } from './create.js';
import { applyEnvFiles } from './env-files.js';
import { echo } from './echo.js';
import { lint } from './lint.js';
import { list } from './list.js';
import { engineVersion, run } from './run.js';
import { printIssues } from './setup.js';
import { streams } from './streams.js';
import { test } from './test.js';

/**
 * A plugin's subcommand (`engine hub ...`): the first word is no engine command and no file.
 * The built-ins and any `--plugin` modules are loaded to find it; it gets the words after it.
 */
async function pluginCommandOf(argv: string[]): Promise<{ command: CommandSpec; rest: string[] } | undefined> {
  const word = argv[0];
  if (word === undefined || word.startsWith('-') || BUILTIN_COMMANDS.has(word) || existsSync(word)) return undefined;
  const mods: string[] = [];
  const rest: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === '--plugin' && argv[i + 1] !== undefined) mods.push(argv[++i]!);
    else if (argv[i]!.startsWith('--plugin=')) mods.push(argv[i]!.slice('--plugin='.length));
    else rest.push(argv[i]!);
  }
  registerCoreComponents();
  await loadPlugins([...BUILTIN_PLUGINS, ...mods.map((m) => absoluteModule(m, process.cwd()))]);
  const command = pluginCommand(word);
  return command && { command, rest };
}

/** The plugins' subcommands (built-in plugins and any --plugin modules) for `engine --help`. */
async function pluginCommandsHelp(mods: string[]): Promise<string> {
  registerCoreComponents();
  await loadPlugins([...BUILTIN_PLUGINS, ...mods.map((m) => absoluteModule(m, process.cwd()))]);
  const lines = [...pluginCommands()].map(([name, c]) => `  engine ${name} ...`.padEnd(37) + c.summary + '\n');
  return lines.length === 0 ? '' : `\nPlugin commands (engine COMMAND --help for their usage):\n${lines.join('')}`;
}

async function main(argv: string[]): Promise<number> {
  const plugin = await pluginCommandOf(argv);
  if (plugin) {
    // `engine hub --help` prints its usage and exits: it never starts the hub (nor makes its folder).
    if (asksForHelp(plugin.rest)) {
      process.stdout.write(`engine ${argv[0]}: ${plugin.command.summary}\n\nUsage:\n  ${plugin.command.usage ?? `engine ${argv[0]}`}\n`);
      return 0;
    }
    return plugin.command.run(plugin.rest);
  }
  // Its own flags (-p, -m, -i, -w mean other things there), as Benthos' subcommand.
  if (argv[0] === 'blobl' && argv[1] === 'server') return blobServer(argv.slice(2));
  const args = parseArgs(argv);
  if (args.version) {
    process.stdout.write(`${engineVersion()}\n`);
    return 0;
  }
  if (args.help) {
    process.stdout.write(HELP + (await pluginCommandsHelp(args.plugins)));
    return 0;
  }
  await applyEnvFiles(args.envFiles);
  switch (args.command) {
    case 'create':
      return create(args);
    case 'lint':
      return lint(args);
    case 'list':
      return list(args);
    case 'echo':
      return echo(args);
    case 'blobl':
      return blobl(args);
    case 'streams':
      return streams(args);
    case 'test':
      return test(args);
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
