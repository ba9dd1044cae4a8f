/**
 * The governance plugin: `engine hub` (the hub: REST, gRPC, web page, database) and
 * `engine agent` (the sync stream that brings APIs from providers to the hub). Components and
 * commands register here; each folder loads its heavy dependencies (gRPC, the database, the AWS
 * SDK) only when used, so an engine that runs neither pays nothing.
 */
import './hub/index.js';
import './agent/index.js';

export {};
