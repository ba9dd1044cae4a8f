/**
 * The tracing family: the tracer backends behind the engine's one tracer interface, `tracer_a`
 * (alias `jaeger`, through jaeger-client) and `open_telemetry_collector` (the OpenTelemetry SDK
 * with the OTLP exporters). Importing this module registers them; each backend's client library
 * loads only when a stream builds that tracer.
 */
import './jaeger-tracer.js';
import './otel-tracer.js';

export {};
