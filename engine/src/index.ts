/**
 * @svc/engine's public API: the only module plugins import.
 *
 *   import { registerProcessor, f, Message } from '@svc/engine';
 */
export { Message, copyBatch, type Batch, type MetaValue } from './message/message.js';
// Numbers that keep their text (Go's json.Number): what message.json() gives for a 64-bit id or `1.10`.
export { JsonNumber } from './message/json-number.js';
export { getPath, setPath } from './message/field-path.js';
export { parseJson, stringifyJson } from './message/json.js';
export { contextKey, ContextKey, MessageContext, type ContextKeyOptions } from './message/context.js';
export { ResultStore, storeResult, answerMessage, isAnswered, type Answer } from './message/result-store.js';
export { END_OF_INPUT, batchesOf, eachMessage, joinBatches, splitAck, type Ack, type EndOfInput, type Transaction } from './message/transaction.js';
export { REQUESTER, type Requester } from './message/requester.js';
export { f, Field, type Infer, type FieldKind } from './config/spec.js';
export type { ComponentConfig, ComponentKind } from './config/component-config.js';
export { registerStreamCheck, type StreamCheck, type StreamProblem, type StreamShape } from './config/stream-checks.js';
export { runProcessors } from './runtime/processor-chain.js';
export { parseDuration } from './config/duration.js';
export { substituteEnv, type EnvProblem } from './config/env.js';
export { REDACTED, redactUrl, scrubSecrets, urlCredentials } from './config/redact.js';
export { ErrorCode, SvcError, NotConnectedError, BatchError, InputFailedError, ConfigError, errorMessage, type ConfigIssue } from './errors.js';
export {
  registerInput,
  registerOutput,
  registerProcessor,
  registerRateLimit,
  registerCache,
  registerMetricsExporter,
  registerTracer,
  registry,
} from './plugin/registry.js';
export { namedTable } from './plugin/named-table.js';
export type {
  Cache,
  ComponentContext,
  ComponentSpec,
  Factory,
  Input,
  Output,
  Processor,
  NamedTable,
  RateLimit,
  ResourceKind,
  ResourceTypes,
  Resources,
  RouteHandler,
  ServiceRoutes,
  UpgradeHandler,
} from './plugin/types.js';
export type { Logger, LogFields, LogLevelName } from './observability/logger.js';
export { createLogger } from './observability/logger.js';
export { defineStream, buildStream, type StreamSource, type StreamDefinition, type DefineOptions, type BuildOptions } from './streams/stream-builder.js';
export type { Stream } from './runtime/stream.js';
export { Streams, type StreamsOptions, type StreamInfo } from './streams/streams.js';
export { mountStreamsApi } from './streams/rest-api.js';
export { runUntilSignal, type Lifecycle, type RunOptions, type RunOutcome } from './plugin/lifecycle.js';
export { registerCommand, type CommandSpec } from './plugin/commands.js';
export { tlsSpec, tlsConnectOptions, type TlsConfig } from './components/tls/tls-options.js';
export { re2PatternField } from './components/regex/re2-pattern.js';
export {
  metricsFor,
  type ComponentMetrics,
  type Counter,
  type Gauge,
  type Timer,
  type Labelled,
  type MetricOptions,
  type MetricsExporter,
  type ChildFactory,
} from './observability/metrics.js';
export {
  spanOf,
  traceContextOf,
  setTraceParent,
  epochMs,
  isSpan,
  type Span,
  type SpanOptions,
  type SpanAttributes,
  type TraceContext,
  type Tracer,
} from './observability/tracer.js';
export {
  extractTraceHeaders,
  injectTraceHeaders,
  extractTracingMap,
  injectTracingMap,
  parseTraceparent,
  formatUberTraceId,
  type HeaderCarrier,
} from './observability/propagation.js';
export { batchPolicySpec, type BatchPolicyConfig } from './runtime/batch-policy.js';
export { maxInFlightField } from './runtime/max-in-flight.js';
export { unwrapProcessor } from './runtime/wrapped-processor.js';
export {
  compileMapping,
  compileQuery,
  mappingTargets,
  type MappingTargets,
  compileInterpolation,
  containedPath,
  hasInterpolation,
  type Mapping,
  type MappingResult,
  type Query,
  type ExecContext,
  type Interpolation,
} from './interp/index.js';
