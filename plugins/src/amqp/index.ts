/**
 * The amqp family: the `amqp_0_9` input and output (AMQP 0.9.1, RabbitMQ). Importing this
 * module registers them.
 */
import './input.js';
import './output.js';

export {};
