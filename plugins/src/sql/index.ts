// Registers the SQL components (PostgreSQL and SQLite): the `sql_select` and `sql_raw` inputs,
// the `sql_insert` and `sql_raw` outputs, and the `sql_select`, `sql_insert` and `sql_raw` processors.
import './select-input.js';
import './insert-output.js';
import './processors.js';
