import { ConfigError } from '../errors.js';
import type { Args } from './args.js';
import { lintTargets } from './lint-targets.js';
import { loadBasePlugins, loadStreamConfig, printIssues } from './setup.js';

/** `engine lint FILE|GLOB|DIR/......`: prints every problem of every file; exit 1 when there is any. */
export async function lint(args: Args): Promise<number> {
  const files = [...args.positional, ...(args.config ? [args.config] : [])];
  if (files.length === 0) {
    process.stderr.write('engine lint: name at least one config file\n');
    return 1;
  }
  const base = await loadBasePlugins(args);
  let problems = 0;
  for (const target of await lintTargets(files)) {
    if ('problem' in target) {
      printIssues([{ file: target.path, line: 0, col: 0, message: target.problem }]);
      problems++;
      continue;
    }
    const file = target.file;
    try {
      const { issues } = await loadStreamConfig(file, args, base);
      printIssues(issues);
      problems += issues.length;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      printIssues(err);
      problems += err.issues.length;
    }
  }
  return problems > 0 ? 1 : 0;
}
