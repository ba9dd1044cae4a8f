// Registers the rate limit kinds and the rate_limit processor.
import './local.js';
import './rate-limit-processor.js';
