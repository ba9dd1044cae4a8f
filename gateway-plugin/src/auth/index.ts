/** The auth family: the `gateway_auth` processor. Importing this module registers it. */
import './register.js';

export {};
