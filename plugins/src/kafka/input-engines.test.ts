/**
 * Scaling out, end to end: two `engine` processes with the same `kafka` input config (one
 * consumer group) share the partitions of a 4-partition topic, each writing what it reads to its
 * own file; when one is stopped (SIGINT) the other takes its partitions over, and every message
 * is in one file or the other (distinct ids counted; duplicates are allowed: at least once).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor, EngineProcess } from '@svc/engine/testing';
import { BROKER, KafkaFixture, uid } from './input-test-support.js';

/** The input's module, loaded as a plugin: the same module the built-ins import, so it registers once. */
const INPUT_MODULE = fileURLToPath(new URL('./input.js', import.meta.url));

const kafka = new KafkaFixture();
const dir = mkdtempSync(join(tmpdir(), 'svc-kafka-engines-'));
before(() => kafka.start());
after(async () => {
  await kafka.stop();
  rmSync(dir, { recursive: true, force: true });
});

function config(topic: string, group: string, out: string): string {
  return `
http:
  enabled: false
input:
  kafka:
    addresses: [ ${BROKER} ]
    topics: [ ${topic} ]
    consumer_group: ${group}
    commit_period: 200ms
pipeline:
  threads: 1
output:
  file:
    path: ${out}
    codec: lines
logger:
  level: INFO
`;
}

function ids(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : [];
}

/** The partitions the engine consumes according to its last "Joined the consumer group" line. */
function partitionsOf(engine: EngineProcess): number {
  const joins = engine.output().match(/Joined the consumer group, consuming [^\s"]+:([\d,]+)/g) ?? [];
  const last = joins[joins.length - 1];
  return last === undefined ? 0 : last.slice(last.lastIndexOf(':') + 1).split(',').length;
}

describe('two engine processes in one consumer group (real broker)', { timeout: 180_000 }, () => {
  it('share the partitions, and the survivor takes over without loss when one stops', async () => {
    const topic = await kafka.topic('engines', 4);
    const group = `engines-${uid()}`;
    const [outA, outB] = [join(dir, 'a.txt'), join(dir, 'b.txt')];
    const a = new EngineProcess(config(topic, group, outA), ['--plugin', INPUT_MODULE]);
    const b = new EngineProcess(config(topic, group, outB), ['--plugin', INPUT_MODULE]);
    const alive = (e: EngineProcess) => (e.done ? Promise.reject(new Error(`an engine exited:\n${e.output()}`)) : undefined);
    await waitFor(
      'both engines to hold two partitions each',
      async () => alive(a) ?? alive(b) ?? (partitionsOf(a) === 2 && partitionsOf(b) === 2 ? true : undefined),
      60_000,
      100,
    );

    const N = 20_000;
    await kafka.produceIds(topic, 0, N / 2);
    const distinct = () => new Set([...ids(outA), ...ids(outB)]).size;
    await waitFor('the first half, written by both engines', async () => alive(a) ?? alive(b) ?? (distinct() === N / 2 ? true : undefined), 60_000, 100);
    assert.ok(ids(outA).length > 0 && ids(outB).length > 0, 'both engines consumed');

    // The second half arrives while A stops: B takes A's partitions over.
    const producing = kafka.produceIds(topic, N / 2, N / 2);
    assert.equal(await a.stop(), 0, a.output());
    await producing;
    await waitFor('every message in one file or the other', async () => alive(b) ?? (distinct() === N ? true : undefined), 60_000, 100);
    assert.equal(partitionsOf(b), 4, 'the survivor consumes every partition');
    assert.equal(await b.stop(), 0, b.output());
    const all = [...ids(outA), ...ids(outB)];
    assert.equal(new Set(all).size, N, 'no message lost');
    assert.ok(all.length >= N, `${all.length} lines (duplicates allowed)`);
  });
});
