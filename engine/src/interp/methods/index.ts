/** Registers every method family; importing this module makes them available to the compiler. */
import './general.js';
import './strings.js';
import './regex.js';
import './encoding.js';
import './structured.js';
import './numbers.js';
import './time.js';
import './parsing.js';
import './bloblang.js';
import './compression.js';
import './json-schema.js';
