/**
 * The kafka family: the `kafka` input and output, also registered as `logbus` (the seed's name).
 * Importing this module registers them.
 */
import './input.js';
import './output.js';

export {};
