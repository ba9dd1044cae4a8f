// Registers the Redis components: the `redis` rate limit and cache.
import './rate-limit.js';
import './cache.js';
