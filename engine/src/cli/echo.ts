import { stringify } from 'yaml';
import { toYamlShape } from '../config/normalised.js';
import { rootSpec } from '../config/root-spec.js';
import { registry } from '../plugin/registry.js';
import type { Args } from './args.js';
import { loadBasePlugins, loadStreamConfig, printIssues } from './setup.js';

/** `engine echo -c FILE`: the config normalised, every default filled in, secrets scrubbed. */
export async function echo(args: Args): Promise<number> {
  const file = args.config ?? args.positional[0];
  if (!file) {
    process.stderr.write('engine echo: name a config with -c FILE\n');
    return 1;
  }
  const base = await loadBasePlugins(args);
  const { config, issues } = await loadStreamConfig(file, args, base);
  if (issues.length) {
    printIssues(issues);
    return 1;
  }
  process.stdout.write(stringify(toYamlShape(config, rootSpec, registry())));
  return 0;
}
