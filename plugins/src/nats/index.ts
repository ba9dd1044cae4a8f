/**
 * The nats family, on the `nats` client: the `nats` input and output (core NATS) and the
 * `nats_jetstream` input and output. Importing this module registers them; the client is loaded
 * at the first connect.
 */
import './input.js';
import './jetstream-input.js';
import './output.js';

export {};
