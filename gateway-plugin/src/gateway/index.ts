/** The gateway's front door: the `api_gateway` input. Importing this module registers it. */
import './register.js';
import './chain-check.js';

export {};
