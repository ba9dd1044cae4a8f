/**
 * Every metric the stream spec (docs/spec/streams.md) lists, by type, with its help text. Names are
 * written without the prefix (`input_received` is exported as `svc_input_received`); every one
 * carries the labels `path` and `label`. The runtime maintains them: a component (a custom
 * plugin's too) gets them without a line of code.
 */
export type MetricType = 'counter' | 'gauge' | 'timer';

export interface StandardMetric {
  type: MetricType;
  help: string;
}

const G = (help: string): StandardMetric => ({ type: 'gauge', help });
const C = (help: string): StandardMetric => ({ type: 'counter', help });
const T = (help: string): StandardMetric => ({ type: 'timer', help });

export const STANDARD_METRICS: Readonly<Record<string, StandardMetric>> = {
  // Gauges.
  input_count: G('Inputs of this path that are active.'),
  output_count: G('Outputs of this path that are active.'),
  processor_count: G('Processors of this path that are active.'),
  cache_count: G('Caches of this path that are active.'),
  condition_count: G('Conditions of this path that are active.'),
  input_connection_up: G('1 when the input is connected, else 0.'),
  output_connection_up: G('1 when the output is connected, else 0.'),
  input_running: G('1 while the input is running, else 0.'),
  output_running: G('1 while the output is running, else 0.'),
  processor_running: G('1 while the processor is running, else 0.'),
  cache_running: G('1 while the cache is running, else 0.'),
  condition_running: G('1 while the condition is running, else 0.'),
  buffer_running: G('1 while the buffer is running, else 0.'),
  buffer_available: G('Messages the buffer can still take.'),
  input_retry: G('Consecutive failed connection or read attempts of the input (0 when healthy).'),
  output_retry: G('Consecutive failed connection attempts of the output (0 when healthy).'),
  processor_retry: G('Consecutive retries of the processor (0 when healthy).'),
  cache_retry: G('Consecutive retries of the cache (0 when healthy).'),
  condition_retry: G('Consecutive retries of the condition (0 when healthy).'),
  buffer_retry: G('Consecutive retries of the buffer (0 when healthy).'),
  threads_active: G('Pipeline threads processing batches (1 when the processors run on the main thread).'),
  // Counters.
  input_received: C('Messages read by the input.'),
  input_batch_received: C('Batches (transactions) read by the input.'),
  output_sent: C('Messages written by the output.'),
  output_batch_sent: C('Batches written by the output.'),
  processor_processed: C('Messages given to the processor.'),
  processor_batch_processed: C('Batches given to the processor.'),
  processor_dropped: C('Messages the processor filtered out.'),
  processor_batch_dropped: C('Batches the processor filtered out entirely.'),
  processor_error: C('Messages the processor failed on (flagged with an error).'),
  processor_batch_error: C('Batches in which the processor failed on a message.'),
  processor_received: C("Messages given to the processor (Benthos' name; the same count as processor_processed)."),
  processor_batch_received: C("Batches given to the processor (Benthos' name; the same count as processor_batch_processed)."),
  processor_sent: C('Messages the processor passed on.'),
  processor_batch_sent: C('Batches the processor passed on.'),
  cache_hit: C('Cache reads that found the key.'),
  cache_miss: C('Cache reads that did not find the key.'),
  cache_added: C('Keys added to the cache.'),
  cache_err: C('Failed cache operations.'),
  condition_hit: C('Messages the condition matched.'),
  condition_miss: C('Messages the condition did not match.'),
  condition_error: C('Messages the condition failed on.'),
  buffer_added: C('Messages added to the buffer.'),
  buffer_batch_added: C('Batches added to the buffer.'),
  buffer_read: C('Messages read from the buffer.'),
  buffer_batch_read: C('Batches read from the buffer.'),
  buffer_ack: C('Messages acknowledged from the buffer.'),
  buffer_batch_ack: C('Batches acknowledged from the buffer.'),
  buffer_nack: C('Messages rejected back to the buffer.'),
  buffer_batch_nack: C('Batches rejected back to the buffer.'),
  buffer_err: C('Messages the buffer failed on.'),
  buffer_batch_err: C('Batches the buffer failed on.'),
  input_error: C('Failed reads of the input.'),
  input_connection_failed: C('Connection attempts of the input that failed.'),
  input_connection_lost: C('Times the input lost a connection it had.'),
  output_connection_failed: C('Connection attempts of the output that failed.'),
  output_connection_lost: C('Times the output lost a connection it had.'),
  input_batch_error: C('Failed batch reads of the input.'),
  output_error: C('Messages the output failed to write.'),
  output_batch_error: C('Batches the output failed to write.'),
  resource_cache_error: C('Errors of cache resources.'),
  resource_condition_error: C('Errors of condition resources.'),
  resource_input_error: C('Errors of input resources.'),
  resource_processor_error: C('Errors of processor resources.'),
  resource_output_error: C('Errors of output resources.'),
  resource_rate_limit_error: C('Errors of rate limit resources.'),
  // Timers (seconds).
  input_latency: T('Seconds from reading a message to its acknowledgement.'),
  input_batch_latency: T('Seconds from reading a batch to its acknowledgement.'),
  output_latency: T('Seconds spent writing, per message (a write divided by its messages).'),
  output_batch_latency: T('Seconds spent writing a batch.'),
  processor_latency: T('Seconds spent processing, per message (a call divided by its messages).'),
  processor_batch_latency: T('Seconds spent processing a batch.'),
  condition_latency: T('Seconds spent checking the condition, per message.'),
  condition_batch_latency: T('Seconds spent checking the condition, per batch.'),
  cache_latency: T('Seconds per cache operation.'),
  buffer_latency: T('Seconds a message spent in the buffer.'),
  buffer_batch_latency: T('Seconds a batch spent in the buffer.'),
};
