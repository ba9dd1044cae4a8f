// Registers the mapping family: the processors and the output built on the expression language.
import './mapping-processor.js';
import './mutation-processor.js';
import './switch-processor.js';
import './try-processor.js';
import './catch-processor.js';
import './switch-output.js';
