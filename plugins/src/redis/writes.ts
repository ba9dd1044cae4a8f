/**
 * How the Redis outputs deliver a batch: every command of the batch pipelined on one connection
 * (Benthos sends a batch as one pipeline), then the write resolves only when Redis answered every
 * one. A command Redis refused fails only the messages it carried (a BatchError naming them, so
 * the runtime retries those alone); a connection that is down fails the write as NotConnectedError
 * (the runtime waits for the reconnect and writes the batch again).
 */
import { isUtf8 } from 'node:buffer';
import { BatchError, NotConnectedError } from '@svc/engine';
import type { RedisConnection } from './client.js';

/** Up to this size a UTF-8 value goes to the client as text (see wireValue). */
const TEXT_UP_TO = 16 * 1024;

/**
 * A message's bytes as a command argument, the same bytes on the wire either way. @redis/client
 * writes every Buffer argument as a socket chunk of its own (a 100-value RPUSH: 201 chunks in
 * one writev) but folds string arguments into one string with the command's framing: a CPU
 * profile of generate → redis_list spent most of its time in writev. So a small value that is
 * valid UTF-8 (it decodes and encodes back to the very same bytes) goes as text; anything else,
 * or a large value, stays a Buffer.
 */
export function wireValue(content: Buffer): string | Buffer {
  return content.length <= TEXT_UP_TO && isUtf8(content) ? content.toString('utf8') : content;
}

/** One command and the indexes of the batch messages it delivers. */
export interface BatchCommand {
  readonly args: Array<string | Buffer>;
  readonly messages: number[];
}

export async function sendBatch(conn: RedisConnection, commands: BatchCommand[], size: number, what: string): Promise<void> {
  if (!conn.ready) throw new NotConnectedError(`${what}: not connected to Redis at ${conn.where}`);
  const results = await Promise.allSettled(commands.map((c) => conn.send(c.args)));
  let failed: BatchError | undefined;
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    if (r.status === 'fulfilled') continue;
    if (!conn.ready) throw new NotConnectedError(`${what}: lost the connection to Redis at ${conn.where}: ${conn.scrub(r.reason)}`);
    const err = new Error(`${what}: ${conn.scrub(r.reason)}`);
    failed ??= new BatchError(size, err);
    for (const m of commands[i]!.messages) failed.failed(m, err);
  }
  if (failed) throw failed;
}
