/**
 * The `metricsexp` (alias `prometheus`) metrics exporter: one prom-client registry per stream,
 * served at `/metrics` (and `/stats`) on the service-wide HTTP server, pushed to a Pushgateway
 * every `push_interval` and once at shutdown, and written to `file_path` at shutdown. Timers are
 * summaries, or histograms with `use_histogram_timing`, in seconds under the names of docs/spec/streams.md and
 * again under Benthos' `*_ns` names (so that Benthos' dashboards work). Process metrics (CPU, memory, event loop
 * lag, GC) come from prom-client's default collectors.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { f, type Infer } from '../config/spec.js';
import { parseDuration } from '../config/duration.js';
import { redactUrl, scrubSecrets, urlCredentials } from '../config/redact.js';
import { errorMessage } from '../errors.js';
import type { ComponentContext } from '../plugin/types.js';
import type { ChildFactory, Counter, Gauge, MetricsExporter, Timer } from './metrics.js';
import { CounterFamily, GaugeFamily, HistogramFamily, NanosecondView, SummaryFamily } from './prometheus-families.js';
import { ThrottledLog } from './throttled-log.js';
import { METRICS_TOPIC } from '../processes/link-messages.js';
import { processLink } from '../processes/process-link.js';

/** prom-client's default gauges whose names end in _total: left out (sum their siblings instead). */
const MISNAMED_PROCESS_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export const DEFAULT_BUCKETS = [0.000001, 0.00001, 0.0001, 0.001, 0.01, 0.1, 1.0];

export const prometheusSpec = f.object({
  prefix: f
    .string()
    .default('svc')
    .svcOnly()
    .describe('A prefix for every metric name (`svc_input_received`); empty for none.')
    .validate((p) =>
      p === '' || /^[a-zA-Z_][a-zA-Z0-9_]*$/.test(p) ? undefined : `prefix "${p}" is not a valid metric name prefix: use letters, digits and underscores`,
    ),
  push_interval: f.duration().default('').describe('How often to push to the Pushgateway at push_url; empty pushes only once, at shutdown.'),
  push_job_name: f.string().default('svc_push').describe('The job name pushed metrics are grouped under.'),
  push_url: f
    .string()
    .url()
    .default('')
    .describe(
      'The URL of a Prometheus Pushgateway (e.g. http://localhost:9091); empty disables pushing. A user and password in it (http://user:pass@host:9091) are sent as basic authentication, unless push_basic_auth is enabled.',
    ),
  push_basic_auth: f
    .object({
      enabled: f.bool().default(false).describe('Whether to send basic authentication with pushes.'),
      username: f.string().default('').describe('The username.'),
      password: f.string().default('').secret().describe('The password.'),
    })
    .describe('Basic authentication for the Pushgateway.'),
  file_path: f.string().default('').describe('A file to write every metric to (Prometheus text format) at shutdown; empty disables it.'),
  use_histogram_timing: f.bool().default(false).describe('Export timers as histograms instead of summaries.'),
  histogram_buckets: f.array(f.float()).default(DEFAULT_BUCKETS).describe('The histogram buckets, in seconds (with use_histogram_timing).'),
  add_process_metrics: f.bool().default(true).advanced().describe('Also export process metrics: CPU, memory, event loop lag, GC.'),
});
export type PrometheusConfig = Infer<typeof prometheusSpec>;

/** How long one push may take: an unreachable Pushgateway never stalls the stream or its shutdown. */
const PUSH_TIMEOUT_MS = 5_000;
/** How often the summaries' quantile window turns over. */
const SUMMARY_WINDOW_MS = 60_000;

interface PromRegistry {
  registerMetric(m: unknown): void;
  metrics(): Promise<string>;
  getMetricsAsJSON(): Promise<unknown>;
  readonly contentType: string;
}

export class PrometheusExporter implements MetricsExporter {
  readonly enabled = true;
  private readonly summaries: SummaryFamily[] = [];
  private readonly rotation: NodeJS.Timeout;
  private pushTimer: NodeJS.Timeout | undefined;
  private pushing: Promise<void> | undefined;
  private readonly pushFailures: ThrottledLog;
  private readonly mounted: string[] = [];
  private closed = false;
  /** In a child of a multi-process stream: stops answering the primary's metrics event. */
  private readonly unlink: (() => void) | undefined;

  constructor(
    private readonly conf: PrometheusConfig,
    private readonly ctx: ComponentContext,
    readonly registry: PromRegistry,
    private readonly gateway: { push(params: { jobName: string }): Promise<unknown> } | undefined,
  ) {
    this.pushFailures = new ThrottledLog(ctx.logger);
    this.rotation = setInterval(() => {
      for (const s of this.summaries) s.rotate();
    }, SUMMARY_WINDOW_MS);
    this.rotation.unref();
    this.unlink = processLink()?.on(METRICS_TOPIC, () => this.registry.getMetricsAsJSON());
    this.mount();
  }

  private fullName(name: string): string {
    return this.conf.prefix ? `${this.conf.prefix}_${name}` : name;
  }

  counter(name: string, help: string, labelNames: readonly string[]): ChildFactory<Counter> {
    const fam = new CounterFamily(this.fullName(name), help, labelNames);
    this.registry.registerMetric(fam);
    return (values: readonly string[]) => fam.child(values);
  }

  gauge(name: string, help: string, labelNames: readonly string[]): ChildFactory<Gauge> {
    const fam = new GaugeFamily(this.fullName(name), help, labelNames);
    this.registry.registerMetric(fam);
    return (values: readonly string[]) => fam.child(values);
  }

  /**
   * A timer, in seconds under its own name, and again under Benthos' name `<name>_ns` (a view of
   * the same observations, see NanosecondView) unless the name ends in `_ns` already.
   */
  timer(name: string, help: string, labelNames: readonly string[]): ChildFactory<Timer> {
    let fam: SummaryFamily | HistogramFamily;
    if (this.conf.use_histogram_timing) {
      fam = new HistogramFamily(this.fullName(name), help, labelNames, this.conf.histogram_buckets);
    } else {
      fam = new SummaryFamily(this.fullName(name), help, labelNames);
      this.summaries.push(fam);
    }
    this.registry.registerMetric(fam);
    if (!name.endsWith('_ns')) this.registry.registerMetric(new NanosecondView(fam, `${this.fullName(name)}_ns`));
    return (values: readonly string[]) => fam.child(values);
  }

  /** The exposition text of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** What `/metrics` answers: in a multi-process stream, every process's metrics summed (the primary gathers them). */
  private served(): Promise<string> {
    return processLink()?.metrics() ?? this.text();
  }

  private mount(): void {
    const service = this.ctx.service;
    if (!service) return;
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('method not allowed\n');
        return;
      }
      this.served().then(
        (body) => {
          res.writeHead(200, { 'Content-Type': this.registry.contentType, 'Content-Length': Buffer.byteLength(body) });
          res.end(req.method === 'HEAD' ? undefined : body);
        },
        (err: unknown) => {
          this.ctx.logger.error(`Cannot render metrics: ${errorMessage(err)}`);
          res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
          res.end('cannot render metrics\n');
        },
      );
    };
    for (const path of ['/metrics', '/stats']) {
      try {
        service.mount(path, handler, 'Metrics in the Prometheus text format.');
        this.mounted.push(path);
      } catch (err) {
        this.ctx.logger.warn(`Metrics are not served at ${path}: ${errorMessage(err)}`);
      }
    }
  }

  start(): void {
    if (!this.gateway || this.pushTimer) return;
    const every = parseDuration(this.conf.push_interval);
    if (every <= 0) return;
    this.pushTimer = setInterval(() => void this.push(), every);
    this.pushTimer.unref();
  }

  /** Pushes once; failures are logged (at most every 30 s), never thrown. One push at a time. */
  push(): Promise<void> {
    if (!this.gateway) return Promise.resolve();
    if (this.pushing) return this.pushing;
    const gw = this.gateway;
    this.pushing = gw
      .push({ jobName: this.conf.push_job_name })
      .then(
        () => undefined,
        (err: unknown) => this.pushFailures.warn(this.scrub(`Failed to push metrics to ${redactUrl(this.conf.push_url)}: ${errorMessage(err)}`)),
      )
      .finally(() => (this.pushing = undefined));
    return this.pushing;
  }

  /** A text without the push URL's password or the basic auth password. */
  private scrub(text: string): string {
    return scrubSecrets(text, [this.conf.push_basic_auth.password], [this.conf.push_url]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.rotation);
    clearInterval(this.pushTimer);
    await this.pushing;
    await this.push();
    if (this.conf.file_path) {
      try {
        await mkdir(dirname(this.conf.file_path), { recursive: true });
        await writeFile(this.conf.file_path, await this.text());
      } catch (err) {
        this.ctx.logger.error(`Cannot write metrics to ${this.conf.file_path}: ${errorMessage(err)}`);
      }
    }
    for (const path of this.mounted.splice(0)) this.ctx.service?.unmount(path);
    this.unlink?.();
  }
}

/** The factory of `metricsexp` / `prometheus`. prom-client loads on first use. */
export async function createPrometheusExporter(conf: PrometheusConfig, ctx: ComponentContext): Promise<PrometheusExporter> {
  const prom = await import('prom-client');
  const registry = new prom.Registry();
  if (conf.add_process_metrics) {
    prom.collectDefaultMetrics({ register: registry });
    // Gauges that prom-client names like counters (promtool: "non-counter metrics should not have
    // _total suffix"); each is the sum over its sibling without _total (nodejs_active_handles ...).
    for (const name of MISNAMED_PROCESS_GAUGES) registry.removeSingleMetric(name);
  }
  let gateway: { push(params: { jobName: string }): Promise<unknown> } | undefined;
  if (conf.push_url) {
    // prom-client reads the URL with Node's `url.parse`, which prints a DeprecationWarning
    // quoting the whole URL (password included) when userinfo makes the port look invalid:
    // the credentials go as a header, and the URL it sees has none.
    const { url, authorization } = urlCredentials(conf.push_url);
    const headers: Record<string, string> = {};
    if (conf.push_basic_auth.enabled) {
      headers.Authorization = `Basic ${Buffer.from(`${conf.push_basic_auth.username}:${conf.push_basic_auth.password}`).toString('base64')}`;
    } else if (authorization) {
      headers.Authorization = authorization;
    }
    gateway = new prom.Pushgateway(url, { timeout: PUSH_TIMEOUT_MS, headers }, registry);
  }
  return new PrometheusExporter(conf, ctx, registry as unknown as PromRegistry, gateway);
}
