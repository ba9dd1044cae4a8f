/**
 * The amqp1 family: the `amqp_1` input and output (AMQP 1.0, on the rhea client). Importing this
 * module registers them; the client is loaded at the first connect.
 */
import './input.js';
import './output.js';

export {};
