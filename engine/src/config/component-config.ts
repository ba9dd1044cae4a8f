/** The kinds of component a config can name. */
export type ComponentKind = 'input' | 'output' | 'processor' | 'rate_limit' | 'cache' | 'buffer' | 'metrics' | 'tracer';

/** A component as written in a config, normalised: its type, its label, its config with defaults. */
export interface ComponentConfig {
  /** The registered component name (`generate`, `stdout`, `broker`, ...). */
  type: string;
  /** The custom label, or '' (metrics and logs fall back to the type). */
  label: string;
  /** Where it stands in the config: `root.input`, `root.pipeline.processors.0`, ... */
  path: string;
  /** The component's own config, validated and with defaults applied. */
  config: unknown;
  /** Processors of an input (run after it) or an output (run before it). */
  processors: ComponentConfig[];
  /** The metrics section's `mapping` (Benthos': renames or drops metric series); metrics only. */
  mapping?: string;
}
