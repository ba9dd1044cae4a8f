import { loggerSpec } from '../observability/logger.js';
import { serviceBasicAuthSpec } from '../service/basic-auth.js';
import { f, type Infer } from './spec.js';
import type { ComponentConfig } from './component-config.js';

export const httpSpec = f.object({
  enabled: f.bool().default(true).describe('Whether to serve the service-wide HTTP server.'),
  address: f.string().default('0.0.0.0:4195').describe('The address to bind to.'),
  root_path: f.string().default('/svc').advanced().describe('A prefix under which every endpoint is also served.'),
  debug_endpoints: f.bool().default(false).advanced().describe('Whether to serve debug endpoints.'),
  cert_file: f.string().default('').advanced().describe('A certificate file to serve TLS with.'),
  key_file: f.string().default('').advanced().describe('The key file of cert_file.'),
  cors: f
    .object({
      enabled: f.bool().default(false).describe('Whether to answer CORS requests.'),
      allowed_origins: f.array(f.string()).default([]).describe('Origins allowed to make requests.'),
    })
    .advanced(),
  basic_auth: serviceBasicAuthSpec,
});
export type HttpConfig = Infer<typeof httpSpec>;

export const pipelineSpec = f.object({
  threads: f
    .int()
    .default(-1)
    .describe('The number of parallel processor pipelines; -1 matches the number of logical CPUs.')
    .validate((n) => (n === 0 || n < -1 ? 'threads must be -1 (one per logical CPU) or at least 1' : undefined)),
  processors: f.array(f.component('processor')).default([]).describe('Processors applied to every message.'),
  dispatch: f
    .enum(['auto', 'pool'])
    .default('auto')
    .advanced()
    .svcOnly()
    .describe(
      'With threads > 1 (svc only): `auto` runs a batch on this thread while processing it costs less than a hop to a worker, on the pool when it costs more (measured as it runs); `pool` always uses the workers.',
    ),
});

/** The root of a stream config. */
export const rootSpec = f.object({
  http: httpSpec,
  input: f.component('input').defaultComponent({ stdin: {} }).describe('The single source of the stream; may be a broker.'),
  buffer: f.component('buffer').defaultComponent({ none: {} }).advanced().describe('A buffer between input and pipeline.'),
  pipeline: pipelineSpec,
  output: f.component('output').defaultComponent({ stdout: {} }).describe('The single sink of the stream; may be a broker.'),
  logger: loggerSpec,
  metrics: f
    .component('metrics')
    .defaultComponent({ prometheus: {} })
    .describe('The metrics backend: Prometheus (served at /metrics) unless set; `none: {}` turns metrics off.'),
  tracer: f.component('tracer').defaultComponent({ none: {} }).describe('The tracing backend: none unless set.'),
  ...resourceSections(),
  shutdown_timeout: f.duration().default('20s').describe('How long to drain in-flight messages on shutdown before giving up.'),
  shutdown_delay: f.duration().default('0s').advanced().describe('How long to keep serving after a shutdown signal before stopping the input.'),
  plugins: f.array(f.string()).default([]).svcOnly().describe('Modules of custom plugins to load (paths relative to this file).'),
  tests: f
    .array(f.any())
    .optional()
    .advanced()
    .describe("Unit tests of this config in Benthos' format (`name`, `input_batch`, `output_batches`, ...), run by `engine test`; a run ignores them."),
});

/**
 * The resource sections (Benthos' names): components declared once with a label, which others
 * name (`resource: label`, a `cache` processor's `resource`, `rate_limit: label`).
 */
function resourceSections() {
  const list = (kind: 'input' | 'output' | 'processor' | 'cache' | 'rate_limit', what: string) =>
    f.array(f.component(kind)).default([]).describe(`A list of ${what} resources, each with a \`label\` the components of the stream name it by.`);
  return {
    input_resources: list('input', 'input').advanced(),
    processor_resources: list('processor', 'processor').advanced(),
    output_resources: list('output', 'output').advanced(),
    cache_resources: list('cache', 'cache'),
    rate_limit_resources: list('rate_limit', 'rate limit'),
  };
}

/** Fields a resources file (`-r`) may hold. */
export const resourcesSpec = f.object(resourceSections());

/** The resource sections of a config, by the kind of their components. */
export const RESOURCE_SECTIONS = {
  input: 'input_resources',
  processor: 'processor_resources',
  output: 'output_resources',
  cache: 'cache_resources',
  rate_limit: 'rate_limit_resources',
} as const;

export type RootConfig = Omit<Infer<typeof rootSpec>, 'input' | 'output' | 'buffer' | 'metrics' | 'tracer'> & {
  input: ComponentConfig;
  output: ComponentConfig;
  buffer: ComponentConfig;
  metrics: ComponentConfig;
  tracer: ComponentConfig;
};
