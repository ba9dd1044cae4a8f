// Registers the json_schema processor.
import './json-schema.js';
