// Registers the Redis components: the `redis` rate limit.
import './rate-limit.js';
