// Peers the benchmarks measure beside the engine, in the same run on the same machine: Benthos
// core (io + pure components), built from bench/peers/benthos/ with Go, once, into a cache folder
// outside the repository ($SVC_PEERS, else /tmp/peers); and the same core with Redpanda Connect's
// redis_list, sql_insert and sql_select written as Connect writes them (bench/peers/benthos-connect/).
// Without Go the peer cells say skipped.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, engineRate, fmt } from './lib.mjs';

const SRC = join(ROOT, 'bench', 'peers', 'benthos');
export const PEERS = process.env.SVC_PEERS || process.env.PEERS || '/tmp/peers';
/** The Benthos module version go.mod pins (the module proxy here refuses newer ones). */
export const BENTHOS_VERSION = /redpanda-data\/benthos\/v4 (v\S+)/.exec(readFileSync(join(SRC, 'go.mod'), 'utf8'))[1];

/**
 * The Go toolchain: $GO when set (and only it, so GO=none runs the benchmarks without peers), else
 * `go` on the PATH or in the usual install folder; undefined when none runs.
 */
function goTool() {
  const candidates = process.env.GO ? [process.env.GO] : ['go', '/usr/local/go/bin/go'];
  return candidates.find((go) => spawnSync(go, ['version']).status === 0);
}

/** Each peer binary's path once known (by folder name); null when there is none and no Go to build it. */
const cached = new Map();

/**
 * The path of the Benthos binary built from bench/peers/<name>/, built on first use into
 * $SVC_PEERS/bin/<name> and reused after; undefined when the binary is absent and Go is not on the
 * machine. Throws when a build fails or the cached binary is another version (the message says what
 * to do).
 */
function peerBinary(name) {
  if (cached.has(name)) return cached.get(name) ?? undefined;
  const bin = join(PEERS, 'bin', name);
  if (!existsSync(bin)) {
    const go = goTool();
    if (!go) {
      cached.set(name, null);
      return undefined;
    }
    const from = join(ROOT, 'bench', 'peers', name);
    const src = join(PEERS, `${name}-src`);
    mkdirSync(src, { recursive: true });
    mkdirSync(join(PEERS, 'bin'), { recursive: true });
    for (const f of readdirSync(from)) copyFileSync(join(from, f), join(src, f));
    process.stderr.write(`building ${name} (Benthos ${BENTHOS_VERSION}) into ${bin} (once; about 2 minutes)...\n`);
    // Build beside the final path and rename, so a half-written binary is never taken for a cached one.
    const r = spawnSync(go, ['build', '-o', `${bin}.tmp`, '.'], { cwd: src, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0)
      throw new Error(
        `building ${name} failed (go build exited ${r.status} in ${src}): check that the Go module proxy serves the modules of its go.mod (github.com/redpanda-data/benthos/v4 ${BENTHOS_VERSION}), or set SVC_PEERS to a folder holding bin/${name}`,
      );
    renameSync(`${bin}.tmp`, bin);
  }
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  const version = /Version: (\S+)/.exec(v.stdout ?? '')?.[1];
  if (version !== BENTHOS_VERSION) {
    throw new Error(
      `${bin} is Benthos ${version ?? '(no version printed)'}, not ${BENTHOS_VERSION}: delete it to rebuild, or set SVC_PEERS to another cache folder`,
    );
  }
  cached.set(name, bin);
  return bin;
}

/** Benthos core (io + pure components): the peer of most rows. */
export function benthosBinary() {
  return peerBinary('benthos');
}

/**
 * Benthos core plus `redis_list` (output), `sql_insert` and `sql_select` written as Redpanda Connect
 * writes them, on the same client libraries (go-redis, lib/pq, modernc.org/sqlite): the module
 * proxy here does not serve Connect itself. The peer of the Redis and SQL connector rows.
 */
export function connectPeerBinary() {
  return peerBinary('benthos-connect');
}

/** The peer cell of a row Benthos could run but cannot here: why not. */
export const SKIPPED_NO_GO = 'skipped: no Go';

/**
 * Benthos' messages per second on the same configs as lib.mjs's engineRate (same timing, start-up
 * subtracted); undefined without a Benthos binary.
 */
export function benthosRate(configFor, count, opts = {}, bin = benthosBinary()) {
  return bin ? engineRate(configFor, count, { ...opts, peerBin: bin }) : undefined;
}

/**
 * A row's Benthos cells: `peer`, Benthos' result (`text`, or why there is none), and `peerRatio`,
 * the engine's rate over Benthos' (above 1 the engine is faster).
 */
export function peerCells(engine, peer, unit = 'msg/s', text = `${fmt(peer ?? 0)} ${unit}`) {
  return peer === undefined ? { peer: SKIPPED_NO_GO } : { peer: text, peerRatio: engine / peer };
}

/** The Tyk Gateway release the gateway benchmark compares with (issue 12). */
export const TYK_VERSION = 'v5.14.0';
const TYK_MODULE = 'github.com/TykTechnologies/tyk';

/**
 * Tyk Gateway built from its public source: `{ bin, templates, version }`, built once into
 * $SVC_PEERS/bin/tyk (about 20 minutes on 2 cores: the module comes from the Go module proxy,
 * `go mod download`, and builds as `CGO_ENABLED=0 go build`), with its error templates in
 * $SVC_PEERS/tyk-templates. Undefined without Go. `../shared/peers/build-tyk.sh` makes the same
 * files from a git checkout.
 */
export function tykPeer() {
  const bin = join(PEERS, 'bin', 'tyk');
  const templates = join(PEERS, 'tyk-templates');
  if (!existsSync(bin) || !existsSync(templates)) {
    const go = goTool();
    if (!go) return undefined;
    process.stderr.write(`building Tyk ${TYK_VERSION} into ${bin} (once; about 20 minutes)...\n`);
    const dl = spawnSync(go, ['mod', 'download', '-json', `${TYK_MODULE}@${TYK_VERSION}`], { encoding: 'utf8', env: { ...process.env, GOFLAGS: '-mod=mod' } });
    const dir = dl.status === 0 ? JSON.parse(dl.stdout).Dir : undefined;
    if (!dir) throw new Error(`downloading Tyk ${TYK_VERSION} failed: ${dl.stderr}; or set SVC_PEERS to a folder holding bin/tyk and tyk-templates`);
    mkdirSync(join(PEERS, 'bin'), { recursive: true });
    const r = spawnSync(go, ['build', '-ldflags', `-X ${TYK_MODULE}/internal/build.Version=${TYK_VERSION}`, '-o', `${bin}.tmp`, '.'], {
      cwd: dir,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, CGO_ENABLED: '0' },
    });
    if (r.status !== 0) throw new Error(`building Tyk failed (go build exited ${r.status} in ${dir})`);
    cpSync(join(dir, 'templates'), templates, { recursive: true });
    renameSync(`${bin}.tmp`, bin);
  }
  return { bin, templates, version: TYK_VERSION };
}
