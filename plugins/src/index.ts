/**
 * The built-in components. Importing this module registers them, through @svc/engine's
 * public plugin API, exactly as a user's plugin registers its own.
 */
import './io/index.js';
import './pure/index.js';
import './mapping/index.js';
import './ratelimit/index.js';
import './cache/index.js';
import './redis/index.js';
import './http/index.js';
import './kafka/index.js';
import './amqp/index.js';
import './avro/index.js';
import './tracing/index.js';
