/**
 * The components every engine has, with nothing else installed: stdin, stdout, files, generate,
 * drop, reject, inproc, the HTTP client and server, mapping, switch, try/catch, log, sleep.
 * Importing this module registers them through the same public plugin API a user's plugin uses;
 * the engine loads it first (by URL, so workers load the same file). Connectors with heavy
 * clients (Kafka, AMQP, Redis, Avro, tracers) live in @svc/plugins.
 */
import './io/index.js';
import './pure/index.js';
import './mapping/index.js';
import './flow/index.js';
import './batch/index.js';
import './http/index.js';
import './socket/index.js';
import './parse/index.js';
import './jq/index.js';
import './utility/index.js';
import './subprocess/index.js';
