/** The hub: `engine hub`. Importing this module registers the command; the hub loads when it runs. */
import './command.js';

export {};
