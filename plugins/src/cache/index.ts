// Registers the caches, the processors that use them and the `cache` output (the `redis` cache is with redis/).
import './memory.js';
import './lru.js';
import './ttlru.js';
import './file.js';
import './multilevel.js';
import './noop.js';
import './cache-processor.js';
import './cached-processor.js';
import './dedupe.js';
import './cache-output.js';
