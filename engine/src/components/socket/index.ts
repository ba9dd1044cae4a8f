/** The socket family: the `socket` and `socket_server` inputs and the `socket` output. Importing this module registers them. */
import './socket-input.js';
import './socket-server-input.js';
import './socket-output.js';

export {};
