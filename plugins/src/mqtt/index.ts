/**
 * The mqtt family: the `mqtt` input and output (MQTT 3.1.1, QoS 0/1/2, clean or persistent sessions,
 * a last will), on the `mqtt-packet` codec. Importing this module registers them; the codec is loaded
 * at the first connect.
 */
import './input.js';
import './output.js';

export {};
