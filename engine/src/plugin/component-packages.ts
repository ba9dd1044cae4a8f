/**
 * Which package brings which component. The engine ships the light components itself; the
 * connectors, the gateway and governance come in packages of their own that the engine loads when
 * they are installed. A config that names a component of a package that is not installed gets an
 * error that names the package to install, from the table generated from the specs
 * (package-components.ts, written by `engine list --format markdown --out docs/components`).
 */
import type { ComponentKind } from '../config/component-config.js';
import { PACKAGE_COMPONENTS } from './package-components.js';
import { registry } from './registry.js';

/** The packages of components the engine loads when they are installed, in load order. */
export const COMPONENT_PACKAGES: readonly string[] = ['@svc/plugins', '@svc/gateway-plugin', '@svc/governance-plugin'];

const origins = new Map<string, string>();
const notInstalled = new Set<string>();

const key = (kind: ComponentKind, name: string): string => `${kind}:${name}`;

/** The registered components' keys, to tell afterwards what one module added. */
export function registeredKeys(): Set<string> {
  return new Set(
    registry()
      .all()
      .map((c) => key(c.kind, c.name)),
  );
}

/** Records `pkg` (a package, or a plugin module's path) as the origin of every component registered since `before` was taken. */
export function recordOrigin(pkg: string, before: Set<string>): void {
  for (const c of registry().all()) {
    const k = key(c.kind, c.name);
    if (!before.has(k) && !origins.has(k)) origins.set(k, pkg);
  }
}

/** The package or plugin module that registered a component (`@svc/engine` for its own), if recorded. */
export function componentOrigin(kind: ComponentKind, name: string): string | undefined {
  return origins.get(key(kind, name));
}

export function markNotInstalled(pkg: string): void {
  notInstalled.add(pkg);
}

/** The package to install for a component this engine does not have, when one of ours brings it. */
export function packageToInstall(kind: ComponentKind, name: string): string | undefined {
  for (const pkg of notInstalled) {
    if (PACKAGE_COMPONENTS[pkg]?.[kind]?.includes(name)) return pkg;
  }
  return undefined;
}
