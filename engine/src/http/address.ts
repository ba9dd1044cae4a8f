import { ErrorCode, SvcError } from '../errors.js';

/** Where a server listens: `host` is '' for every interface. */
export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * Splits a listen address `host:port` (`:4195` is every interface, `[::1]:4195` an IPv6 host,
 * port 0 an ephemeral port). `field` names the config field in the error, e.g. `http.address`.
 */
export function parseAddress(address: string, field = 'address'): ListenAddress {
  const colon = address.lastIndexOf(':');
  const portText = colon < 0 ? '' : address.slice(colon + 1);
  const port = Number(portText);
  if (colon < 0 || !/^\d+$/.test(portText) || port > 65535) {
    throw new SvcError(ErrorCode.ConfigLint, `${field} "${address}" is not host:port (e.g. 0.0.0.0:4195, :4195 or [::1]:4195)`);
  }
  return { host: address.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port };
}
