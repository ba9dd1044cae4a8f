/**
 * The `sync_response` processor: stores each message, as it is at this point, as the
 * synchronous response of the input it came from, and lets it go on through the pipeline (the
 * request is answered once the message is delivered), as Benthos does.
 */
import { f, registerProcessor, type Batch, type Processor } from '@svc/engine';
import { storeResponse } from './sync-response.js';

export const syncResponseProcessorSpec = f.object({});

export class SyncResponseProcessor implements Processor {
  process(batch: Batch): Batch[] {
    // Stored, not answered: the message goes on to the output.
    for (const m of batch) storeResponse(m);
    return [batch];
  }
}

registerProcessor('sync_response', {
  summary: 'Stores each message as it is now as the synchronous response of its input; the message goes on.',
  description: [
    'The input that received the message (an `http_server`) answers with it once the message is',
    'delivered, so the pipeline can go on processing it and write it to an output. Inputs without',
    'synchronous responses ignore it.',
  ].join('\n'),
  config: syncResponseProcessorSpec,
  examples: [
    `pipeline:
  processors:
    - mapping: root = "Received %s".format(content().string())
    - sync_response: {}
    - mapping: root = content().uppercase()   # what the output gets`,
  ],
  factory: () => new SyncResponseProcessor(),
});
