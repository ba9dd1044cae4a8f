/**
 * The `logbus_lag` gauge: per topic and partition, how many records follow the last one handed
 * out (the partition's high watermark − that offset − 1), as `logbus_lag` metadata counts it.
 */
import { metricsFor, type ComponentContext, type Gauge, type Labelled } from '@svc/engine';

export type LagGauge = Labelled<Gauge>;

export function lagGauge(ctx: ComponentContext): LagGauge {
  return metricsFor(ctx).gauge('logbus_lag', {
    help: 'Records of the partition after the last one the input handed out (high watermark - offset - 1).',
    labels: ['topic', 'partition'],
  });
}
