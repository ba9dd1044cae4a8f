/** The agent: `engine agent`, the `governance_sync` input and the `governance_hub` output. */
import './register.js';
import './command.js';

export {};
