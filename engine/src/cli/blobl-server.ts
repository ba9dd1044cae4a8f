/**
 * `engine blobl server` (Benthos' `blobl server`): a page for writing a mapping against an input,
 * and the API behind it, `POST /execute` with `{"mapping","input"}` answering
 * `{"parse_error","mapping_error","result"}` as Benthos' does (a result as indented JSON, or the
 * text of a string root). Flags as Benthos: `--host` (localhost), `-p/--port` (4195),
 * `-m/--mapping-file`, `-i/--input-file`, `-w/--write` (changes written back every 5 s and on exit),
 * `-n/--no-open` (accepted; no browser is ever opened here).
 *
 * A mapping can read the environment and files, so the server is for local use: it binds
 * localhost by default, answers /execute only to JSON requests from its own page or a non-browser
 * client (a cross-site page cannot send application/json without a preflight it never gets, and an
 * Origin other than the server's is refused), and reads at most 4 MiB of a request.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { SvcError, ErrorCode, errorMessage } from '../errors.js';
import { InterpError, compileMapping } from '../interp/index.js';
import { parseJson, stringifyJson } from '../message/json.js';
import { Message } from '../message/message.js';

const MAX_BODY = 4 << 20;

interface ServerOptions {
  host: string;
  port: string;
  mappingFile?: string;
  inputFile?: string;
  write: boolean;
}

function parseServerArgs(argv: string[]): ServerOptions {
  const o: ServerOptions = { host: 'localhost', port: '4195', write: false };
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i]!;
    let inline: string | undefined;
    const eq = arg.indexOf('=');
    if (arg.startsWith('-') && eq > 0) [arg, inline] = [arg.slice(0, eq), arg.slice(eq + 1)];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new SvcError(ErrorCode.Usage, `${arg} needs a value (see engine blobl server --help)`);
      return v;
    };
    if (arg === '--host') o.host = value();
    else if (arg === '-p' || arg === '--port') o.port = value();
    else if (arg === '-m' || arg === '--mapping-file') o.mappingFile = value();
    else if (arg === '-i' || arg === '--input-file') o.inputFile = value();
    else if (arg === '-w' || arg === '--write') o.write = true;
    else if (arg === '-n' || arg === '--no-open') continue;
    else throw new SvcError(ErrorCode.Usage, `unknown flag ${arg} for engine blobl server (--host, -p, -m, -i, -w, -n)`);
  }
  return o;
}

export interface ExecuteResult {
  parse_error: string;
  mapping_error: string;
  result: string;
}

/** What Benthos' /execute answers for a mapping on an input. */
export function execute(mappingText: string, input: string): ExecuteResult {
  const res: ExecuteResult = { parse_error: '', mapping_error: '', result: '' };
  let mapping;
  try {
    mapping = compileMapping(mappingText);
  } catch (err) {
    res.parse_error = err instanceof InterpError ? `failed to parse mapping: line ${err.line} char ${err.col}: ${err.reason}\n` : errorMessage(err);
    return res;
  }
  const msg = new Message(input);
  try {
    const r = mapping.exec(msg, { batch: [msg], index: 0 });
    if (r.deleted) return res;
    if (r.root === undefined) {
      // Nothing assigned: the input as it is, indented when it is JSON.
      try {
        res.result = stringifyJson(parseJson(input), '  ');
      } catch {
        res.result = input;
      }
    } else {
      const root = r.root;
      res.result = typeof root === 'string' ? root : Buffer.isBuffer(root) ? root.toString() : stringifyJson(root, '  ');
    }
  } catch (err) {
    res.mapping_error = errorMessage(err);
  }
  return res;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(mapping: string, input: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Bloblang editor</title>
<style>
body{margin:0;font:14px monospace;background:#1e1e1e;color:#ddd;display:grid;grid-template-columns:1fr 1fr;grid-template-rows:1fr 1fr;height:100vh}
textarea,pre{margin:0;padding:8px;border:1px solid #333;background:#252526;color:#ddd;font:inherit;overflow:auto;resize:none}
pre.err{color:#f48771}
</style></head><body>
<textarea id="input" aria-label="input" spellcheck="false">${escapeHtml(input)}</textarea>
<pre id="output" aria-label="output"></pre>
<textarea id="mapping" aria-label="mapping" spellcheck="false" style="grid-column:1/3">${escapeHtml(mapping)}</textarea>
<script>
const $ = (id) => document.getElementById(id);
let pending;
async function run() {
  const r = await fetch('/execute', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mapping: $('mapping').value, input: $('input').value }) });
  const res = await r.json();
  const err = res.parse_error || res.mapping_error;
  $('output').className = err ? 'err' : '';
  $('output').textContent = err || res.result;
}
for (const id of ['mapping', 'input']) $(id).addEventListener('input', () => { clearTimeout(pending); pending = setTimeout(run, 200); });
run();
</script></body></html>
`;
}

function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (d: Buffer) => {
      size += d.length;
      if (size > MAX_BODY) {
        resolve(undefined);
        req.destroy();
        return;
      }
      parts.push(d);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/** Runs the server until SIGINT/SIGTERM. */
export async function blobServer(argv: string[]): Promise<number> {
  const o = parseServerArgs(argv);
  const read = (f: string | undefined, fallback: string): string => {
    if (f === undefined) return fallback;
    try {
      return readFileSync(f, 'utf8');
    } catch (err) {
      if (o.write && (err as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
      throw new SvcError(ErrorCode.Usage, `cannot read ${f}: ${errorMessage(err)}`);
    }
  };
  const state = { mapping: read(o.mappingFile, 'root = this'), input: read(o.inputFile, '{"message":"hello world"}'), dirty: false };
  const writeBack = () => {
    if (!o.write || !state.dirty) return;
    state.dirty = false;
    try {
      if (o.inputFile) writeFileSync(o.inputFile, state.input);
      if (o.mappingFile) writeFileSync(o.mappingFile, state.mapping);
    } catch (err) {
      process.stderr.write(`Failed to write back: ${errorMessage(err)}\n`);
    }
  };
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/execute' || url.startsWith('/execute?')) {
      const origin = req.headers.origin;
      const own = `http://${req.headers.host ?? ''}`;
      if (
        req.method !== 'POST' ||
        (origin !== undefined && origin !== own) ||
        !/^application\/json\b/i.test(req.headers['content-type'] ?? 'application/json')
      ) {
        res.writeHead(req.method !== 'POST' ? 405 : 403, { 'content-type': 'text/plain' }).end('POST application/json from this page only\n');
        return;
      }
      void readBody(req).then(
        (body) => {
          if (body === undefined) return void res.writeHead(413, { 'content-type': 'text/plain' }).end('request too large\n');
          let r: { mapping?: unknown; input?: unknown };
          try {
            r = JSON.parse(body) as typeof r;
            if (r === null || typeof r !== 'object') throw new Error('expected a JSON object');
          } catch (err) {
            return void res.writeHead(400, { 'content-type': 'text/plain' }).end(`${errorMessage(err)}\n`);
          }
          const mapping = typeof r.mapping === 'string' ? r.mapping : '';
          const input = typeof r.input === 'string' ? r.input : '';
          if (mapping !== state.mapping || input !== state.input) state.dirty = true;
          Object.assign(state, { mapping, input });
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(execute(mapping, input)));
        },
        () => res.destroy(),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(state.mapping, state.input));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(o.port), o.host, resolve);
  });
  const addr = server.address();
  const shown = typeof addr === 'object' && addr !== null ? `${o.host}:${addr.port}` : `${o.host}:${o.port}`;
  process.stderr.write(`Serving at: http://${shown}\n`);
  process.stderr.write(
    'WARNING: This server is intended for local debugging and experimentation purposes, bloblang has the ability to expose environment variables and file contents, do not expose this server to the internet\n',
  );
  const timer = setInterval(writeBack, 5000);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  clearInterval(timer);
  writeBack();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  return 0;
}
