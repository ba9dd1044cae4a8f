// Registers the utility processors: batch and flow helpers (insert_part, processors), crash, benchmark, metric.
import './insert-part.js';
import './processors.js';
import './crash.js';
import './metric.js';
import './benchmark.js';
