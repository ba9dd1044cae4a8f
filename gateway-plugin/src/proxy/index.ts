/** The proxy family: the `gateway_proxy` output. Importing this module registers it. */
import './gateway-proxy-output.js';

export {};
