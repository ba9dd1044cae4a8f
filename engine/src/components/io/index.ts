/**
 * The io family: generate, stdin, file (input and output), stdout, drop, reject and inproc.
 * Importing this module registers them.
 */
import './generate.js';
import './stdin.js';
import './file.js';
import './stdout.js';
import './file-output.js';
import './drop.js';
import './reject.js';
import './inproc.js';

export {};
import './csv-input.js';
