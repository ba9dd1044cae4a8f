// Registers the parsing processors: text into structure (grok, parse_log) and JSON queries (jmespath; jq is in ../jq).
import './grok.js';
import './parse-log.js';
import './jmespath.js';
