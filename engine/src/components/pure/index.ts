// Registers the pure processors (no I/O).
import './noop.js';
import './sleep.js';
import './log.js';
