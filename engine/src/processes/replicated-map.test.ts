/**
 * ReplicatedMap's load against a link whose snapshot answer and a change's event arrive together:
 * the event's handler runs before load's continuation, as when both IPC messages are read at once.
 * The link is a stand-in with ProcessLink's `ask` and `on` (the cluster test, cli/processes.test,
 * runs the real one).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MapEntry } from './link-messages.js';
import { ReplicatedMap, type ProcessLink } from './process-link.js';

function standInLink() {
  let handler: ((p: unknown) => unknown) | undefined;
  let answer: ((entries: MapEntry[]) => void) | undefined;
  const link = {
    on: (_topic: string, h: (p: unknown) => unknown) => ((handler = h), () => (handler = undefined)),
    ask: () => new Promise<MapEntry[]>((r) => (answer = r)),
  } as unknown as ProcessLink;
  return { link, event: (e: MapEntry) => handler?.(e), snapshot: (entries: MapEntry[]) => answer?.(entries) };
}

describe('ReplicatedMap', () => {
  it('keeps a change whose event runs before the older snapshot is applied', async () => {
    const { link, event, snapshot } = standInLink();
    const map = new ReplicatedMap<string>(link, 'sessions');
    const loading = map.load();
    // The snapshot was taken before the write; its answer and the write's event are read together.
    snapshot([['old', 'a', 0]]);
    event(['new', 'b', 0]);
    await loading;
    assert.deepEqual([map.get('old'), map.get('new')], ['a', 'b']);
  });

  it('keeps a deletion that arrived while loading, and follows changes after it', async () => {
    const { link, event, snapshot } = standInLink();
    const map = new ReplicatedMap<string>(link, 'sessions');
    const loading = map.load();
    snapshot([['gone', 'a', 0]]);
    event(['gone', null, 0]);
    await loading;
    assert.equal(map.get('gone'), undefined);
    event(['later', 'c', 0]);
    assert.equal(map.get('later'), 'c');
  });
});
