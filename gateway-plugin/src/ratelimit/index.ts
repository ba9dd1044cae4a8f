/** The rate limit family: the `gateway_rate_limit` processor. Importing this module registers it. */
import './register.js';

export {};
