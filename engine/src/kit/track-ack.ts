import type { Ack } from '../message/transaction.js';

/**
 * The ack of one transaction, telling `settle` what became of it once: the runtime may ack a
 * transaction more than once (a broker output's copies, a nack then a shutdown drain), and a
 * source must not count a delivery twice nor settle it on the broker twice.
 */
export function trackAck(settle: Ack): Ack {
  let settled = false;
  return (err?: Error) => {
    if (settled) return;
    settled = true;
    settle(err);
  };
}
