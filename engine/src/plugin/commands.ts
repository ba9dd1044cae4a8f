/**
 * CLI subcommands contributed by plugins (`engine hub ...`, `engine agent ...`): the command
 * gets the arguments after its name and resolves with the exit code. It usually builds its
 * long-running parts and hands them to `runUntilSignal`, as `engine run` does with a stream.
 */
import { ErrorCode, SvcError } from '../errors.js';

export interface CommandSpec {
  /** One line for `engine --help`. */
  summary: string;
  /** The usage line(s), e.g. `engine hub -c hub.yaml`. */
  usage?: string;
  run(argv: string[]): Promise<number>;
}

/** The engine's own subcommands: a plugin cannot take these names. */
export const BUILTIN_COMMANDS: ReadonlySet<string> = new Set(['run', 'lint', 'list', 'echo', 'blobl', 'streams', 'test', 'create', 'help']);

const commands = new Map<string, CommandSpec>();

/** Registers a subcommand; a name taken already (by the engine or a plugin) throws. */
export function registerCommand(name: string, spec: CommandSpec): void {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new SvcError(ErrorCode.PluginLoad, `command name "${name}" must be lowercase letters, digits and "-"`);
  if (BUILTIN_COMMANDS.has(name) || commands.has(name)) throw new SvcError(ErrorCode.PluginLoad, `a command named "${name}" is already registered`);
  commands.set(name, spec);
}

/** The plugins' subcommands by name, in the order they were registered (for `engine --help`). */
export function pluginCommands(): ReadonlyMap<string, CommandSpec> {
  return commands;
}

/** Whether a subcommand's arguments ask for its help (before any `--`): it prints usage and does nothing else. */
export function asksForHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '-h' || a === '--help' || a === 'help') return true;
  }
  return false;
}

export function pluginCommand(name: string): CommandSpec | undefined {
  return commands.get(name);
}
