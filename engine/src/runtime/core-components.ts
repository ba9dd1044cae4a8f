import { f } from '../config/spec.js';
import { registerObservabilityComponents } from '../observability/components.js';
import { registry } from '../plugin/registry.js';
import { brokerInput } from './broker-input.js';
import { brokerOutput } from './broker-output.js';
import { registerBuffers } from './buffers.js';
import { dropOnOutput } from './drop-on-output.js';
import { dynamicInput } from './dynamic-input.js';
import { dynamicOutput } from './dynamic-output.js';
import { fallbackOutput } from './fallback-output.js';
import { readUntilInput } from './read-until-input.js';
import { registerResourceComponents } from './resource-components.js';
import { rejectErroredOutput } from './reject-errored-output.js';
import { retryOutput } from './retry-output.js';
import { registerRuntimeInput, registerRuntimeOutput } from './runtime-component.js';
import { sequenceInput } from './sequence-input.js';

let done = false;

/**
 * Registers what the runtime itself provides: the input and output brokers, the `resource`
 * input, output and processor, the buffers (`none`, `memory`, `system_window`),
 * and the metrics exporters and tracers (`none` for both). Idempotent; called on every thread
 * before configs are read.
 */
export function registerCoreComponents(): void {
  if (done) return;
  done = true;
  const r = registry();
  registerRuntimeInput(r, 'broker', brokerInput);
  registerRuntimeOutput(r, 'broker', brokerOutput);
  const none = { summary: 'Nothing: the default.', config: f.object({}), factory: () => ({}) };
  r.register('buffer', 'none', none);
  registerBuffers(r);
  registerResourceComponents(r);
  // Outputs that wrap outputs (issue 27 item 4).
  registerRuntimeOutput(r, 'fallback', fallbackOutput);
  registerRuntimeOutput(r, 'retry', retryOutput);
  registerRuntimeOutput(r, 'drop_on', dropOnOutput);
  registerRuntimeOutput(r, 'reject_errored', rejectErroredOutput);
  // Inputs that wrap inputs (issue 27 item 4).
  registerRuntimeInput(r, 'sequence', sequenceInput);
  registerRuntimeInput(r, 'read_until', readUntilInput);
  // Brokers changed at run time through the service's HTTP API (issue 38).
  registerRuntimeInput(r, 'dynamic', dynamicInput);
  registerRuntimeOutput(r, 'dynamic', dynamicOutput);
  registerObservabilityComponents(r);
}
