// Registers the Redis components: the `redis` rate limit, cache and processor; the `redis_list`,
// `redis_streams` and `redis_pubsub` inputs and outputs; the `redis_hash` output.
import './rate-limit.js';
import './cache.js';
import './processor.js';
import './list-input.js';
import './list-output.js';
import './streams-input.js';
import './streams-output.js';
import './pubsub-input.js';
import './pubsub-output.js';
import './hash-output.js';
