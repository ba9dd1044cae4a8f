/**
 * A worker thread's replica of a gateway state, against the main thread's publisher, with real
 * worker threads: the snapshot on hello, changes applied in version order, `atLeast` waiting for a
 * version, a session written on the worker applied on the main thread and visible to the worker
 * once its write resolved, and the same for a second worker.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { MemorySessionStore } from '../sessions/memory-store.js';
import { createLogger } from '@svc/engine';
import { StatePublisher, SyncedSessionStore } from './state-publisher.js';
import { GatewayState, registerGatewayState, unregisterGatewayState } from './state.js';
import { apiSpec, gatewayConfig, waitFor } from './test-support.js';

const here = fileURLToPath(new URL('.', import.meta.url));

/** A worker that runs commands against its replica of gateway `name` and posts the results back. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  await import(${JSON.stringify(here + 'state-replica.js')});
  const { gatewayState } = await import(${JSON.stringify(here + 'state.js')});
  parentPort.on('message', async (cmd) => {
    try {
      const s = gatewayState(workerData.name);
      const w = s.atLeast(cmd.version ?? 0);
      if (w) await w;
      if (cmd.op === 'read') {
        parentPort.postMessage({ version: s.version, apis: s.allApis().map((a) => a.id), policies: s.allPolicies().map((p) => p.id), session: (await s.sessions.get(cmd.key)) ?? null, port: s.config.listen_port });
      } else if (cmd.op === 'set') {
        await s.sessions.set(cmd.key, cmd.session);
        parentPort.postMessage({ version: s.version, session: (await s.sessions.get(cmd.key)) ?? null });
      }
    } catch (err) {
      parentPort.postMessage({ error: String(err) });
    }
  });
  parentPort.postMessage({ ready: true });
})();
`;

class Probe {
  readonly worker: Worker;
  private readonly ready: Promise<void>;

  constructor(name: string) {
    this.worker = new Worker(WORKER, { eval: true, workerData: { name } });
    this.ready = new Promise((r) => this.worker.once('message', () => r()));
  }

  async run(cmd: Record<string, unknown>): Promise<Record<string, unknown>> {
    await this.ready;
    const reply = new Promise<Record<string, unknown>>((r) => this.worker.once('message', r));
    this.worker.postMessage(cmd);
    const m = await reply;
    if (m['error']) throw new Error(String(m['error']));
    return m;
  }
}

describe('gateway state replicas on worker threads', () => {
  const inner = new MemorySessionStore();
  const sessions = new SyncedSessionStore(inner);
  const state = new GatewayState({ name: 'replica-test', config: gatewayConfig(1234), apis: [apiSpec('a', '/a')], policies: [], sessions });
  let publisher = new StatePublisher(state, sessions, createLogger({ level: 'OFF' }));
  registerGatewayState(state);
  const probes = [new Probe('replica-test'), new Probe('replica-test')];
  after(async () => {
    publisher.close();
    unregisterGatewayState(state);
    await Promise.all(probes.map((p) => p.worker.terminate()));
  });

  it('a replica starts from a snapshot and follows every change by version', async () => {
    await sessions.set('k1', { rate: 1 });
    const first = await probes[0]!.run({ op: 'read', version: state.version, key: 'k1' });
    assert.deepEqual(first, { version: state.version, apis: ['a'], policies: [], session: { rate: 1 }, port: 1234 });

    state.replaceApis([apiSpec('a', '/a'), apiSpec('b', '/b')]);
    state.replacePolicies([{ id: 'p1' }]);
    await sessions.delete('k1');
    await sessions.set('k2', { rate: 2 });
    for (const p of probes) {
      const r = await p.run({ op: 'read', version: state.version, key: 'k2' });
      assert.deepEqual(r, { version: state.version, apis: ['a', 'b'], policies: ['p1'], session: { rate: 2 }, port: 1234 });
      assert.equal((await p.run({ op: 'read', version: state.version, key: 'k1' }))['session'], null);
    }
  });

  it('a gateway started again under the same name (versions from the start) is followed from its snapshot', async () => {
    const again = new GatewayState({
      name: 'replica-test',
      config: gatewayConfig(5678),
      apis: [apiSpec('z', '/z')],
      policies: [],
      sessions: new SyncedSessionStore(new MemorySessionStore()),
    });
    assert.ok(again.version < state.version, 'the new state counts from the start');
    publisher.close();
    const second = new StatePublisher(again, again.sessions as SyncedSessionStore, createLogger({ level: 'OFF' }));
    try {
      // A change of the new state reaches the replica, which starts over from the new snapshot.
      again.replaceApis([apiSpec('z', '/z'), apiSpec('y', '/y')]);
      for (const p of probes) {
        await waitFor(async () => (await p.run({ op: 'read', key: 'k2' }))['port'] === 5678, 'the replica to follow the new state');
        assert.deepEqual(await p.run({ op: 'read', version: again.version, key: 'k2' }), {
          version: again.version,
          apis: ['z', 'y'],
          policies: [],
          session: null,
          port: 5678,
        });
      }
    } finally {
      second.close();
      publisher = new StatePublisher(state, sessions, createLogger({ level: 'OFF' }));
    }
  });

  it('a session written on a worker is applied on the main thread and seen by every replica', async () => {
    const r = await probes[0]!.run({ op: 'set', key: 'split', session: { meta_data: { jwt: 'x.y.z' } } });
    // The worker's own write is visible to it as soon as the write resolved.
    assert.deepEqual(r['session'], { meta_data: { jwt: 'x.y.z' } });
    assert.deepEqual(inner.read('split'), { meta_data: { jwt: 'x.y.z' } });
    const other = await probes[1]!.run({ op: 'read', version: r['version'], key: 'split' });
    assert.deepEqual(other['session'], { meta_data: { jwt: 'x.y.z' } });
  });
});
