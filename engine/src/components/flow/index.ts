// Registers the control-flow family: processors that run other processors (branch, workflow, ...).
import './branch.js';
import './workflow.js';
import './while.js';
import './for-each.js';
import './parallel.js';
import './retry.js';
import './group-by.js';
import './batched.js';
