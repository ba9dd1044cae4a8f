/**
 * The http family: the `http_server` input and output, the `http_client` input and output, the `http`
 * processor, and the `sync_response` output and processor. Importing this module registers them.
 */
import './http-server-input.js';
import './http-server-output.js';
import './websocket-input.js';
import './websocket-output.js';
import './http-client-input.js';
import './http-client-output.js';
import './sync-response-output.js';
import './sync-response-processor.js';
import './http-processor.js';

export {};
