/**
 * The `sync_response` output: each message becomes the response of the input that received it
 * (an http_server answers its request with it). For inputs without synchronous responses the
 * response is dropped without penalty, so it is safe behind a broker.
 */
import { f, registerOutput, type Batch, type Output } from '@svc/engine';
import { storeResponse } from './sync-response.js';

export const syncResponseOutputSpec = f.object({});

export class SyncResponseOutput implements Output {
  write(batch: Batch): Promise<void> {
    for (const m of batch) storeResponse(m);
    return Promise.resolve();
  }
}

registerOutput('sync_response', {
  summary: 'Returns each message as the synchronous response of the input it came from.',
  description: [
    'For an `http_server` input the message becomes the answer of its request (status and headers from',
    "the input's `sync_response` field). For inputs without synchronous responses it is dropped without",
    'penalty, so it is safe in a broker, for example next to an output that stores the messages.',
  ].join('\n'),
  config: syncResponseOutputSpec,
  examples: [
    `input:
  http_server: { path: /post }
pipeline:
  processors:
    - mapping: root = content().uppercase()
output:
  sync_response: {}`,
    `# Store the request and answer with a modified copy.
output:
  broker:
    pattern: fan_out
    outputs:
      - file: { path: ./requests.jsonl, codec: lines }
      - sync_response: {}
        processors:
          - mapping: 'root = content().uppercase()'`,
  ],
  factory: () => new SyncResponseOutput(),
});
