/**
 * The nats family, on the `nats` client: the `nats` input and output (core NATS) and the
 * `nats_jetstream` input and output, and `nats_kv` (input, output, processor, cache). Importing this module registers them; the client is loaded
 * at the first connect.
 */
import './input.js';
import './jetstream-input.js';
import './output.js';
import './kv-input.js';
import './kv-output.js';
import './kv-processor.js';
import './kv-cache.js';

export {};
