// Registers the components that run other programs: the command and subprocess processors, the subprocess input and output.
import './command.js';
import './subprocess-processor.js';
import './subprocess-input.js';
import './subprocess-output.js';
