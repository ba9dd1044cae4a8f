import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { f } from '../config/spec.js';
import { registerCommand } from './commands.js';
import { Registry } from './registry.js';

const spec = { summary: 'x', config: f.object({}), factory: () => ({ process: (b: never[]) => [b] }) };

describe('registry', () => {
  it('refuses a second component with the same kind and name', () => {
    const r = new Registry();
    r.register('processor', 'twice', spec);
    assert.throws(() => r.register('processor', 'twice', spec), /a processor named "twice" is registered already/);
    // The same name in another kind is another component.
    r.register('output', 'twice', spec);
  });

  it('refuses a plugin command that takes a name in use', () => {
    registerCommand('registry-test-cmd', { summary: 'x', run: async () => 0 });
    assert.throws(() => registerCommand('registry-test-cmd', { summary: 'y', run: async () => 0 }), /already registered/);
    assert.throws(() => registerCommand('lint', { summary: 'y', run: async () => 0 }), /already registered/);
  });
});
