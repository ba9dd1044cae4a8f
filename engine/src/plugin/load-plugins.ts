import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';

/** The plugin modules every engine loads first: the built-in components. */
export const BUILTIN_PLUGINS: readonly string[] = ['@svc/plugins', '@svc/gateway-plugin', '@svc/governance-plugin'];

let tsLoader: Promise<void> | undefined;

/** TypeScript plugins load through tsx, registered once per thread on first need. */
function ensureTypeScript(): Promise<void> {
  return (tsLoader ??= import('tsx/esm/api').then((api) => {
    api.register();
  }));
}

function specifierOf(mod: string): string {
  if (isAbsolute(mod)) return pathToFileURL(mod).href;
  if (mod.startsWith('./') || mod.startsWith('../')) return pathToFileURL(resolve(mod)).href;
  return mod;
}

/**
 * Imports plugin modules in order; each registers its components as it loads. Module paths
 * are absolute, relative to the working directory, or package names. A `.ts` module is
 * compiled on the fly. A module that cannot be found or throws is an SvcError naming it.
 */
export async function loadPlugins(modules: readonly string[]): Promise<void> {
  for (const mod of modules) {
    if (/\.(c|m)?ts$/.test(mod)) await ensureTypeScript();
    try {
      await import(specifierOf(mod));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const reason =
        code === 'ERR_MODULE_NOT_FOUND' || code === 'ENOENT'
          ? `module not found: ${errorMessage(err).split('\n')[0]}`
          : `it threw while loading: ${errorMessage(err)}`;
      throw new SvcError(ErrorCode.PluginLoad, `cannot load plugin "${mod}": ${reason}`, { cause: err });
    }
  }
}
