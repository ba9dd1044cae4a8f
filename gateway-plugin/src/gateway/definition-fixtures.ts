/**
 * Test fixtures of the middleware tests that run a real gateway process over classic definition
 * files: an upstream that records what reaches it (method, URL, headers), and a gateway started
 * on a folder of definitions behind `gateway: {}` and `gateway_proxy`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { runGateway, writeGateway, type EngineRun } from './engine-run.js';
import { freePort, gatewayConfig } from './test-support.js';

export type Def = Record<string, unknown>;

/** What the upstream got: `METHOD url`, the request's headers and its body. */
export interface Seen {
  line: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * An upstream on loopback for the test file that answers `up` (or the request's `x-up-body`; with
 * `x-up: yes`, and the headers a request's `x-up-answer` names as JSON) and records every request.
 */
export function recordingUpstream(): { target: () => string; seen: Seen[] } {
  const seen: Seen[] = [];
  let base = '';
  const server = http.createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      seen.push({ line: `${req.method} ${req.url}`, headers: req.headers, body: Buffer.concat(body).toString() });
      res.setHeader('x-up', 'yes');
      const extra = req.headers['x-up-answer'];
      if (typeof extra === 'string') for (const [k, v] of Object.entries(JSON.parse(extra) as Record<string, string>)) res.setHeader(k, v);
      // `x-up-body`: the answer's body (else `up`).
      const answer = req.headers['x-up-body'];
      res.end(typeof answer === 'string' ? answer : 'up');
    });
  });
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return { target: () => base, seen };
}

/** A keyless classic definition on `/<id>/` (stripped) in front of `target`; `version`: more fields of its one version. */
export function classicDef(id: string, target: string, more: Def = {}, paths: Def = {}, version: Def = {}): Def {
  return {
    api_id: id,
    name: id,
    use_keyless: true,
    proxy: { listen_path: `/${id}/`, target_url: target, strip_listen_path: true },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: paths, ...version } } },
    ...more,
  };
}

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Starts a gateway process over `defs` (file name → definition) with svc.conf `more`; `input`: more `api_gateway` fields (YAML flow style). */
export async function definitionGateway(defs: Record<string, Def>, more: Def = {}, input?: string): Promise<{ port: number; engine: EngineRun }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gw-defs-'));
  dirs.push(dir);
  const port = await freePort();
  writeGateway(dir, { ...gatewayConfig(port), ...more } as ReturnType<typeof gatewayConfig>, []);
  for (const [name, def] of Object.entries(defs)) writeFileSync(join(dir, 'apps', name), JSON.stringify(def));
  const engine = await runGateway(dir, port, 'pipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}', input === undefined ? {} : { input });
  return { port, engine };
}

/** Tyk's error body (templates/error.json). */
export function tykBody(message: string): string {
  return `{\n    "error": "${message}"\n}`;
}
