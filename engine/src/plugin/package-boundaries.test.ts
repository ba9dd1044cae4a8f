/**
 * The package boundaries, read from the sources: every package the engine and the built-in
 * plugins import is one their own package.json declares (npm hoists every workspace's
 * dependencies to the root, so an undeclared import would still resolve here and break for a
 * user who installs @svc/engine alone), the engine carries no tracer backend (those are
 * components in plugins/src/tracing), the plugin packages take the engine as a peer (one engine,
 * one registry, in a user's project), and the plugins (built-in, gateway, governance) reach the
 * engine only through `@svc/engine` (its plugin kit, `@svc/engine/kit`, and its test kit,
 * `@svc/engine/testing`), never a path into its files.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { COMPONENT_PACKAGES } from './component-packages.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

function manifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;
}

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.ts$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The module specifiers a source file imports: static, side-effect, re-exports and import(). */
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const re of [/^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/gm, /^\s*import\s*['"]([^'"]+)['"]/gm, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g]) {
    for (const m of text.matchAll(re)) out.push(m[1]!);
  }
  return out;
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; undefined for relative paths and builtins. */
function packageOf(spec: string): string | undefined {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || builtinModules.includes(spec)) return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** `file: package` for every import the package's manifest does not declare (tests may use devDependencies). */
function undeclared(dir: string): string[] {
  const m = manifest(dir);
  const root = manifest('.');
  // A package may import itself by name (the engine's own components import `@svc/engine` as a plugin does).
  // An optional dependency (a native driver that may not build) is imported where its feature is used.
  const deps = new Set([m.name, ...Object.keys(m.dependencies ?? {}), ...Object.keys(m.peerDependencies ?? {}), ...Object.keys(m.optionalDependencies ?? {})]);
  const testDeps = new Set([...deps, ...Object.keys(m.devDependencies ?? {}), ...Object.keys(root.devDependencies ?? {})]);
  const out: string[] = [];
  for (const file of sources(join(ROOT, dir, 'src'))) {
    const allowed = /\.test\.ts$|\/testing\//.test(file) ? testDeps : deps;
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      const pkg = packageOf(spec);
      if (pkg !== undefined && !allowed.has(pkg)) out.push(`${relative(ROOT, file)}: ${pkg}`);
    }
  }
  return out;
}

const TRACER_BACKEND = /^(jaeger-client|@opentelemetry\/.*|thriftrw|@grpc\/.*)$/;

describe('package boundaries', () => {
  it('the engine imports only what engine/package.json declares', () => {
    assert.deepEqual(undeclared('engine'), []);
  });

  it('the engine depends on no tracer backend: jaeger-client and the OpenTelemetry SDK belong to plugins/src/tracing', () => {
    const m = manifest('engine');
    const backends = [...Object.keys(m.dependencies ?? {}), ...Object.keys(m.devDependencies ?? {})].filter((d) => TRACER_BACKEND.test(d));
    assert.deepEqual(backends, []);
  });

  it('the built-in plugins import only what plugins/package.json declares', () => {
    assert.deepEqual(undeclared('plugins'), []);
  });

  it('the plugin packages take @svc/engine as a peer dependency, never a dependency of their own', () => {
    for (const dir of ['plugins', 'gateway-plugin', 'governance-plugin']) {
      const m = manifest(dir);
      assert.equal(m.peerDependencies?.['@svc/engine'], manifest('engine').version, dir);
      assert.equal(m.dependencies?.['@svc/engine'], undefined, dir);
    }
  });

  it('the engine declares each package of components it loads as an optional peer (npm installs none; pnpm lets it see them)', () => {
    const m = manifest('engine') as Manifest & { peerDependenciesMeta?: Record<string, { optional?: boolean }> };
    for (const pkg of COMPONENT_PACKAGES) {
      assert.equal(m.peerDependencies?.[pkg], manifest('engine').version, pkg);
      assert.equal(m.peerDependenciesMeta?.[pkg]?.optional, true, pkg);
    }
    assert.deepEqual(
      Object.keys(m.dependencies ?? {}).filter((d) => d.startsWith('@svc/')),
      [],
    );
  });

  it('the plugins (built-in, gateway, governance) reach the engine only through @svc/engine, @svc/engine/kit and @svc/engine/testing', () => {
    const reaching: string[] = [];
    const files = ['plugins', 'gateway-plugin', 'governance-plugin'].flatMap((dir) => sources(join(ROOT, dir, 'src')));
    for (const file of files) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const door = spec === '@svc/engine' || spec === '@svc/engine/kit' || spec === '@svc/engine/testing';
        if ((spec.startsWith('@svc/engine/') && !door) || /(^|\/)engine\/(src|dist)\//.test(spec)) reaching.push(`${relative(ROOT, file)}: ${spec}`);
      }
    }
    assert.deepEqual(reaching, []);
  });
});
