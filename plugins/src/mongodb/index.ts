/** The mongodb components (Redpanda Connect's): input, output, processor and cache. */
import './input.js';
import './output.js';
