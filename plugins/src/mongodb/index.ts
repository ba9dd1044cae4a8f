/** The mongodb components (Redpanda Connect's): input, output, processor and cache. */
import './output.js';
