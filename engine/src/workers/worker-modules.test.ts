/**
 * A pipeline worker loads a package of components only when its chain or resources name one of
 * the package's components: a mapping chain's workers do without the connectors, gateway and
 * governance packages (each worker would pay their load in CPU and memory).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { BUILTIN_PLUGINS, loadPlugins } from '../plugin/load-plugins.js';
import { configOf } from '../testing/run-config.js';
import { workerModules } from './worker-modules.js';

/** The processors and resources of a config, validated, as the stream hands them to its workers. */
function chainOf(yaml: string): unknown[] {
  const c = configOf(`input: { stdin: {} }\noutput: { drop: {} }\n${yaml}`);
  return [c.pipeline.processors, { cache_resources: c.cache_resources, rate_limit_resources: c.rate_limit_resources }];
}

describe('the modules a pipeline worker loads', () => {
  before(() => loadPlugins(BUILTIN_PLUGINS));
  const own = BUILTIN_PLUGINS[0]!;
  const user = '/srv/my-plugin.js';

  it("a chain of the engine's own processors loads no package; user modules always", () => {
    const chain = chainOf('pipeline:\n  processors:\n    - mapping: root = this\n    - branch: { processors: [ { log: { message: x } } ] }\n');
    assert.deepEqual(workerModules([...BUILTIN_PLUGINS, user], chain), [own, user]);
  });

  it('a component of a package, nested or among the resources, loads that package', () => {
    const nested = chainOf('pipeline:\n  processors:\n    - switch: [ { processors: [ { decompress: { algorithm: gzip } } ] } ]\n');
    assert.deepEqual(workerModules(BUILTIN_PLUGINS, nested), [own, '@svc/plugins']);
    const resources = chainOf(
      'pipeline:\n  processors: [ { rate_limit: { resource: two } } ]\nrate_limit_resources: [ { label: two, local: { count: 2, interval: 1h } } ]\n',
    );
    assert.deepEqual(workerModules(BUILTIN_PLUGINS, resources), [own, '@svc/plugins']);
  });
});
