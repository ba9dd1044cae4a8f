import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { InterpError, compileMapping } from '../interp/index.js';
import { errorMessage } from '../errors.js';
import { stringifyJson } from '../message/json.js';
import { Message } from '../message/message.js';
import type { Args } from './args.js';

/**
 * `engine blobl 'MAPPING'` / `engine blobl -f FILE`: runs a mapping on each line of stdin and
 * prints each result on its own line (a string root raw, anything else as compact JSON), as
 * Benthos' `blobl` does. A line that fails prints its error to stderr; the rest go on.
 */
export async function blobl(args: Args): Promise<number> {
  const src = args.file ? readFileSync(args.file, 'utf8') : args.positional[0];
  if (src === undefined) {
    process.stderr.write("engine blobl: give a mapping ('root = this.foo') or -f FILE\n");
    return 1;
  }
  let mapping;
  try {
    mapping = compileMapping(src);
  } catch (err) {
    if (err instanceof InterpError) {
      process.stderr.write(`${args.file ?? 'mapping'}:${err.line}:${err.col} ${err.reason}\n`);
      return 1;
    }
    throw err;
  }
  let failed = 0;
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    const msg = new Message(line);
    try {
      const r = mapping.exec(msg, { batch: [msg], index: 0 });
      if (r.deleted) continue;
      const root = r.root === undefined ? line : r.root;
      process.stdout.write((typeof root === 'string' ? root : Buffer.isBuffer(root) ? root.toString() : stringifyJson(root)) + '\n');
    } catch (err) {
      failed++;
      process.stderr.write(`failed to execute map: ${errorMessage(err)}\n`);
    }
  }
  return failed > 0 ? 1 : 0;
}
