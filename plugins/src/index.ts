/**
 * The connectors: components with heavy clients (Kafka, AMQP, Redis, Avro, the tracers) and the
 * local rate limit. Importing this module registers them, through @svc/engine's public plugin
 * API, exactly as a user's plugin registers its own. The engine loads this package when it is
 * installed; the light components (stdin, stdout, files, HTTP, mapping) ship in @svc/engine.
 */
import './ratelimit/index.js';
import './cache/index.js';
import './redis/index.js';
import './sql/index.js';
import './mongodb/index.js';
import './kafka/index.js';
import './amqp/index.js';
import './amqp1/index.js';
import './aws/index.js';
import './nats/index.js';
import './mqtt/index.js';
import './avro/index.js';
import './compress/index.js';
import './jsonschema/index.js';
import './tracing/index.js';
