// Registers the control-flow family: processors that run other processors (branch, workflow, ...).
import './branch.js';
import './workflow.js';
