// Registers the batch family: processors that reshape batches (split, select, group by value, bounds).
import './group-by-value.js';
import './split.js';
import './select-parts.js';
import './bounds-check.js';
import './archive.js';
import './unarchive.js';
