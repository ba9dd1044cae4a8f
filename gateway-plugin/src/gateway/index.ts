/**
 * The gateway's front door: the `api_gateway` input, and on worker threads the replicas of its
 * state. Importing this module registers them.
 */
import './state-replica.js';
import './register.js';
import './chain-check.js';

export {};
