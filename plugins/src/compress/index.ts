// Registers the compress and decompress processors.
import './processors.js';
