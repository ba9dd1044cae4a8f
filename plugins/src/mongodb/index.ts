/** The mongodb components (Redpanda Connect's): input, output, processor and cache. */
import './cache.js';
import './input.js';
import './output.js';
import './processor.js';
