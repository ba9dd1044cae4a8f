import { f } from '../config/spec.js';
import { registry } from '../plugin/registry.js';
import { brokerInput } from './broker-input.js';
import { brokerOutput } from './broker-output.js';

let done = false;

/**
 * Registers what the runtime itself provides: the input and output brokers, and the `none`
 * buffer, metrics and tracer. Idempotent; called on every thread before configs are read.
 */
export function registerCoreComponents(): void {
  if (done) return;
  done = true;
  const r = registry();
  r.register('input', 'broker', brokerInput);
  r.register('output', 'broker', brokerOutput);
  const none = { summary: 'Nothing: the default.', config: f.object({}), factory: () => ({}) };
  r.register('buffer', 'none', none);
  r.register('metrics', 'none', none);
  r.register('tracer', 'none', none);
}
