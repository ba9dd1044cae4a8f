/**
 * The kafka family: the `kafka` input and output, also registered as `logbus` (the name docs/spec/streams.md gives it).
 * `kafka_franz` and `redpanda` (Redpanda Connect's names) are registered only to be refused at load
 * with what to write instead. Importing this module registers them.
 */
import './input.js';
import './output.js';
import './other-names.js';

export {};
