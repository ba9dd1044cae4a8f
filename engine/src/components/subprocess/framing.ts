/**
 * How messages are framed on a subprocess' pipes (Benthos' subprocess codecs): `lines`
 * (bufio.ScanLines: `\n`-ended, a `\r` before it dropped, a last unended line kept at the end),
 * `length_prefixed_uint32_be` and `netstring`. A decoder holds at most `maxBuffer` bytes of an
 * unfinished token (bufio.Scanner's limit): past it, it throws "token too long".
 */

export const FRAMINGS = ['lines', 'length_prefixed_uint32_be', 'netstring'] as const;
export type Framing = (typeof FRAMINGS)[number];

/** The bytes written before and after a payload. */
export function frame(framing: Framing, payload: Buffer): { prolog?: Buffer; epilog?: Buffer } {
  if (framing === 'lines') return { epilog: NEWLINE };
  if (framing === 'netstring') return { prolog: Buffer.from(`${payload.length}:`), epilog: COMMA };
  const prolog = Buffer.alloc(4);
  prolog.writeUInt32BE(payload.length >>> 0);
  return { prolog };
}

const NEWLINE = Buffer.from('\n');
const COMMA = Buffer.from(',');

/** Splits a byte stream into tokens; `push` gives the tokens each chunk completes. */
export class FrameDecoder {
  private buf: Buffer = Buffer.alloc(0);

  constructor(
    private readonly framing: Framing,
    private readonly maxBuffer: number,
  ) {}

  push(chunk: Buffer): Buffer[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      const t = this.next();
      if (t === undefined) break;
      out.push(t);
    }
    if (this.buf.length > this.maxBuffer) throw new Error('bufio.Scanner: token too long');
    return out;
  }

  /** At the end of the stream: the last unended line (lines only; the other framings drop it). */
  end(): Buffer[] {
    const rest = this.buf;
    this.buf = Buffer.alloc(0);
    if (this.framing !== 'lines' || rest.length === 0) return [];
    return [dropCR(rest)];
  }

  private next(): Buffer | undefined {
    const b = this.buf;
    if (this.framing === 'lines') {
      const i = b.indexOf(10);
      if (i < 0) return undefined;
      this.buf = b.subarray(i + 1);
      return dropCR(b.subarray(0, i));
    }
    if (this.framing === 'length_prefixed_uint32_be') {
      if (b.length < 4) return undefined;
      const n = b.readUInt32BE(0);
      if (b.length - 4 < n) return undefined;
      this.buf = b.subarray(4 + n);
      return b.subarray(4, 4 + n);
    }
    const colon = b.indexOf(58);
    if (colon < 0) return undefined;
    if (colon === 0) throw new Error("encountered invalid netstring: netstring starts with colon (':')");
    const text = b.subarray(0, colon).toString('latin1');
    if (!/^\d+$/.test(text)) throw new Error(`encountered invalid netstring: unable to decode length '${text}'`);
    const n = Number(text);
    if (b.length <= colon + 1 + n) return undefined;
    if (b[colon + 1 + n] !== 44) throw new Error('encountered invalid netstring: trailing comma-character is missing');
    this.buf = b.subarray(colon + 2 + n);
    return b.subarray(colon + 1, colon + 1 + n);
  }
}

function dropCR(line: Buffer): Buffer {
  return line.length > 0 && line[line.length - 1] === 13 ? line.subarray(0, -1) : line;
}

/** Go's exec error text for a command that could not start or did not succeed. */
export function execError(name: string, err: NodeJS.ErrnoException | undefined, code: number | null, signal: NodeJS.Signals | null): string {
  if (err?.code === 'ENOENT')
    return name.includes('/') ? `fork/exec ${name}: no such file or directory` : `exec: "${name}": executable file not found in $PATH`;
  if (err?.code === 'EACCES') return name.includes('/') ? `fork/exec ${name}: permission denied` : `exec: "${name}": permission denied`;
  if (err) return err.message;
  if (signal) return `signal: ${SIGNAL_NAMES[signal] ?? signal}`;
  return `exit status ${code}`;
}

const SIGNAL_NAMES: Partial<Record<NodeJS.Signals, string>> = {
  SIGKILL: 'killed',
  SIGTERM: 'terminated',
  SIGINT: 'interrupt',
  SIGSEGV: 'segmentation fault',
  SIGPIPE: 'broken pipe',
  SIGABRT: 'aborted',
};
