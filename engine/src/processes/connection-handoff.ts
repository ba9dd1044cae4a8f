/**
 * The connections the primary handed to a child that the child never took. `node:cluster`'s
 * round-robin hand-off sends each accepted connection to a child and closes its own copy only once
 * the child answers that it took it; a child that dies first (SIGKILL, a crash) never answers, so
 * the primary held the connection open and its client waited for its whole timeout. Watching each
 * child's channel, the primary closes those connections when the child goes: the client sees the
 * connection reset at once (as a crash cuts a connection the child had taken). They are not handed
 * to another child: the dying one may have read part of the request.
 *
 * Node's hand-off messages (`NODE_CLUSTER` `newconn` with a `seq`, answered by an `ack` of that
 * `seq`) are its internal protocol between primary and child (lib/internal/cluster).
 */
import type { ChildProcess } from 'node:child_process';
import type { Worker } from 'node:cluster';

interface ClusterMessage {
  cmd?: unknown;
  act?: unknown;
  seq?: unknown;
  ack?: unknown;
}

/** The primary's copy of a handed connection (a libuv TCP handle). */
interface Handle {
  close(): void;
}

const isCluster = (m: unknown): m is ClusterMessage => m !== null && typeof m === 'object' && (m as ClusterMessage).cmd === 'NODE_CLUSTER';

/** From now on, closes the connections handed to `worker` that it has not taken when it disconnects or exits. */
export function closeUntakenConnections(worker: Worker): void {
  const child: ChildProcess = worker.process;
  const handed = new Map<number, Handle>();
  let gone = false;
  const send = child.send.bind(child) as (message: unknown, handle?: unknown, ...rest: unknown[]) => boolean;
  child.send = ((message: unknown, handle?: unknown, ...rest: unknown[]): boolean => {
    if (isCluster(message) && message.act === 'newconn' && typeof message.seq === 'number' && handle) {
      // Handed after the child went: nobody will take it.
      if (gone) {
        (handle as Handle).close();
        return false;
      }
      handed.set(message.seq, handle as Handle);
    }
    return send(message, handle, ...rest);
  }) as ChildProcess['send'];
  child.on('internalMessage', (m: unknown) => {
    if (isCluster(m) && typeof m.ack === 'number') handed.delete(m.ack);
  });
  const close = (): void => {
    gone = true;
    for (const h of handed.values()) h.close();
    handed.clear();
  };
  child.once('disconnect', close);
  child.once('exit', close);
}
