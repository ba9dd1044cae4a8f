/** The request shaping family: the `gateway_transform` processor. Importing this module registers it. */
import './register.js';

export {};
