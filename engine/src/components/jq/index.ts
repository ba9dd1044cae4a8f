// Registers the jq processor (its own jq interpreter: parser, evaluator, built-ins).
import './jq.js';
