/**
 * The kafka family: the `kafka` input and output, also registered as `logbus` (the name docs/spec/streams.md gives it).
 * Importing this module registers them.
 */
import './input.js';
import './output.js';

export {};
