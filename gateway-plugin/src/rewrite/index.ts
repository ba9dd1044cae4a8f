/** The URL rewrite family: the `gateway_url_rewrite` processor. Importing this module registers it. */
import './register.js';

export {};
