import { createRequire } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';
import { COMPONENT_PACKAGES, markNotInstalled, recordOrigin, registeredKeys } from './component-packages.js';

/** The engine's own components (stdin, stdout, files, HTTP, mapping), by URL so workers load the same file. */
const OWN_COMPONENTS = new URL('../components/index.js', import.meta.url).href;

/**
 * The plugin modules every engine loads first: its own components, then the packages of
 * components (connectors, gateway, governance), each only when it is installed.
 */
export const BUILTIN_PLUGINS: readonly string[] = [OWN_COMPONENTS, ...COMPONENT_PACKAGES];

let tsLoader: Promise<void> | undefined;

/**
 * TypeScript plugins load through tsx, registered once per thread on first need. Both its hooks:
 * a `.ts` file in a CommonJS project (no `"type": "module"`) is CommonJS, and with the ESM hook
 * alone Node refuses it ("Cannot require() ES Module ... in a cycle").
 */
function ensureTypeScript(): Promise<void> {
  return (tsLoader ??= Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]).then(([esm, cjs]) => {
    esm.register();
    cjs.register();
  }));
}

function specifierOf(mod: string): string {
  if (isAbsolute(mod)) return pathToFileURL(mod).href;
  if (mod.startsWith('./') || mod.startsWith('../')) return pathToFileURL(resolve(mod)).href;
  return mod;
}

/** Whether `err` says that the package `pkg` itself is not installed (not one of its imports). */
function isNotInstalled(err: unknown, pkg: string): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ERR_MODULE_NOT_FOUND' && errorMessage(err).includes(`'${pkg}'`);
}

/**
 * Imports plugin modules in order; each registers its components as it loads. Module paths
 * are absolute, relative to the working directory, or package names. A `.ts` module is
 * compiled on the fly. A module that cannot be found or throws is an SvcError naming it, except
 * a package of components that is not installed: a config that needs it is told to install it.
 */
export async function loadPlugins(modules: readonly string[]): Promise<void> {
  for (const mod of modules) {
    if (/\.(c|m)?ts$/.test(mod)) await ensureTypeScript();
    const before = registeredKeys();
    try {
      // A `.cts` plugin is CommonJS: required, since Node 20's ESM loader cannot run a CommonJS
      // module that requires the (ESM) engine while loader hooks are registered.
      if (mod.endsWith('.cts')) createRequire(import.meta.url)(resolve(mod));
      else await import(specifierOf(mod));
    } catch (err) {
      if (COMPONENT_PACKAGES.includes(mod) && isNotInstalled(err, mod)) {
        markNotInstalled(mod);
        continue;
      }
      const code = (err as NodeJS.ErrnoException).code;
      const reason =
        code === 'ERR_MODULE_NOT_FOUND' || code === 'ENOENT'
          ? `module not found: ${errorMessage(err).split('\n')[0]}`
          : `it threw while loading: ${errorMessage(err)}`;
      throw new SvcError(ErrorCode.PluginLoad, `cannot load plugin "${mod}": ${reason}`, { cause: err });
    }
    recordOrigin(mod === OWN_COMPONENTS ? '@svc/engine' : mod, before);
  }
}
