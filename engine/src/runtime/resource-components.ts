/**
 * The `resource` input, output and processor (Benthos'): each stands for the resource of that
 * label in `input_resources`, `output_resources` or `processor_resources`. The resource is built
 * once, with its own path and label (its metrics and logs carry them); every `resource` naming it
 * uses that one instance.
 */
import { f } from '../config/spec.js';
import type { Registry } from '../plugin/registry.js';
import type { Processor } from '../plugin/types.js';
import { registerRuntimeInput, registerRuntimeOutput } from './runtime-component.js';

const label = (kind: string) => f.string().describe(`The label of a resource in ${kind}_resources.`);

export function registerResourceComponents(r: Registry): void {
  registerRuntimeInput(r, 'resource', {
    summary: 'Reads from an input resource: one of `input_resources`, by its label.',
    description: 'The input is built once, where it is declared; this stands for it wherever it is named.',
    config: label('input'),
    examples: [
      'input:\n  resource: events\ninput_resources:\n  - label: events\n    generate:\n      count: 3\n      interval: ""\n      mapping: root = "hi"\n',
    ],
    build: (name, _ctx, parts) => Promise.resolve(parts.resourceSource(name)),
  });
  registerRuntimeOutput(r, 'resource', {
    summary: 'Writes to an output resource: one of `output_resources`, by its label.',
    description: 'The output is built once, where it is declared; every `resource` output naming it writes through that one.',
    config: label('output'),
    examples: ['output:\n  resource: archive\noutput_resources:\n  - label: archive\n    file:\n      path: ./archive.jsonl\n'],
    build: (name, _ctx, parts) => Promise.resolve(parts.resourceSink(name)),
  });
  r.register<string, Processor>('processor', 'resource', {
    summary: 'Runs a processor resource: one of `processor_resources`, by its label.',
    description: 'The processor is built once per thread where it is declared; every `resource` processor naming it runs that one.',
    config: label('processor'),
    examples: ['pipeline:\n  processors:\n    - resource: tidy\nprocessor_resources:\n  - label: tidy\n    mapping: root = this.trim()\n'],
    factory: (name, ctx) => {
      const p = ctx.resources.get('processor', name);
      // Not its owner: the resource is closed where it was built.
      return { process: (batch) => p.process(batch) };
    },
  });
}
