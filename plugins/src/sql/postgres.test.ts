/**
 * The SQL components against the real PostgreSQL (scripts/services.sh): sql_insert stores a batch
 * in one statement with exact values; sql_select and sql_raw read rows as Redpanda Connect's pq
 * driver gives them (64-bit integers exact, numeric and json as text, timestamps RFC 3339, NULL),
 * 100 to a batch, then end; the processors query, insert and flag failures; sql_raw as an output
 * retries only the failed message; other drivers and an unreachable database are refused clearly.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchError, END_OF_INPUT, Message, NotConnectedError, type Input, type Transaction } from '@svc/engine';
import { freePort } from '@svc/engine/testing';
import { PG_URL, buildInput, buildOutput, buildProcessor, pgQuery, tempTable } from './test-support.js';

async function readAll(input: Input): Promise<Message[][]> {
  await input.connect?.();
  const batches: Message[][] = [];
  for (;;) {
    const t = await input.read();
    if (t === END_OF_INPUT) return batches;
    batches.push((t as Transaction).batch);
    (t as Transaction).ack();
  }
}

const PG = { driver: 'postgres', dsn: PG_URL };

describe('sql components on PostgreSQL (real server)', () => {
  it('sql_insert: init_statement makes the table, a batch is one INSERT, 64-bit values exact', async () => {
    const t = tempTable('ins');
    const out = await buildOutput('sql_insert', {
      ...PG,
      table: t,
      columns: ['id', 'name', 'big'],
      args_mapping: 'root = [ this.id, this.name, this.big ]',
      init_statement: `CREATE TABLE IF NOT EXISTS ${t} (id int PRIMARY KEY, name text, big bigint)`,
      suffix: 'ON CONFLICT (id) DO NOTHING',
    });
    try {
      await out.connect?.();
      const batch = [1, 2, 3].map((i) => new Message(`{"id":${i},"name":"n${i}","big":922337203685477580${i}}`));
      await out.write(batch);
      await out.write(batch); // a redelivery stores nothing twice
    } finally {
      await out.close?.();
    }
    const rows = await pgQuery<{ id: number; name: string; big: string }>(`SELECT id, name, big::text AS big FROM ${t} ORDER BY id`);
    assert.deepEqual(rows, [
      { id: 1, name: 'n1', big: '9223372036854775801' },
      { id: 2, name: 'n2', big: '9223372036854775802' },
      { id: 3, name: 'n3', big: '9223372036854775803' },
    ]);
  });

  it('sql_select input: rows as the Go driver gives them, where with ? placeholders, 100 a batch, then the end', async () => {
    const t = tempTable('sel');
    await pgQuery(`CREATE TABLE ${t} (id int, big bigint, amount numeric(10,2), doc jsonb, at timestamptz, note text)`);
    await pgQuery(
      `INSERT INTO ${t} SELECT g, 9007199254740993, 1.50, '{"a": [1, 2]}', '2024-01-02 03:04:05.120+00', CASE WHEN g % 2 = 0 THEN 'even' END FROM generate_series(1, 260) g`,
    );
    const input = await buildInput('sql_select', {
      ...PG,
      table: t,
      columns: ['*'],
      where: 'id > ? AND id <= ?',
      args_mapping: 'root = [ 5, 255 ]',
      suffix: 'ORDER BY id',
    });
    const batches = await readAll(input);
    await input.close?.();
    assert.deepEqual(
      batches.map((b) => b.length),
      [100, 100, 50],
    );
    const first = batches[0]![0]!.content.toString();
    assert.equal(first, '{"id":6,"big":9007199254740993,"amount":"1.50","doc":"{\\"a\\": [1, 2]}","at":"2024-01-02T03:04:05.12Z","note":"even"}');
    assert.equal(batches[0]![1]!.json() && (batches[0]![1]!.json() as { note: unknown }).note, null);
  });

  it('sql_raw input: a SELECT streamed, an INSERT ... RETURNING read whole', async () => {
    const t = tempTable('raw');
    await pgQuery(`CREATE TABLE ${t} (id serial PRIMARY KEY, v text)`);
    const ins = await buildInput('sql_raw', { ...PG, query: `INSERT INTO ${t} (v) VALUES ($1), ($2) RETURNING id, v`, args_mapping: 'root = [ "a", "b" ]' });
    const inserted = await readAll(ins);
    await ins.close?.();
    assert.deepEqual(
      inserted.flat().map((m) => m.json()),
      [
        { id: 1, v: 'a' },
        { id: 2, v: 'b' },
      ],
    );
    const sel = await buildInput('sql_raw', { ...PG, query: `SELECT v FROM ${t} WHERE id = $1;`, args_mapping: 'root = [ 2 ]' });
    assert.deepEqual(
      (await readAll(sel)).flat().map((m) => m.content.toString()),
      ['{"v":"b"}'],
    );
    await sel.close?.();
  });

  it('a select larger than memory should hold: the server waits while rows go unread; closing early ends the query', async () => {
    const tag = `svc_stream_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    // About 100 MB of rows, far past what the sockets buffer.
    const input = await buildInput('sql_raw', { ...PG, query: `SELECT /* ${tag} */ g, repeat('x', 1000) AS pad FROM generate_series(1, 100000) g` });
    const ours = () =>
      pgQuery<{ state: string; wait_event: string | null }>(`SELECT state, wait_event FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()`, [
        `%${tag}%`,
      ]);
    try {
      await input.connect?.();
      const first = (await input.read()) as Transaction;
      assert.equal(first.batch.length, 100);
      assert.equal((first.batch[0]!.json() as { g: number }).g, 1);
      first.ack();
      // Nothing more is read: PostgreSQL is left blocked writing to the client, the rest unsent.
      let seen: Array<{ state: string; wait_event: string | null }> = [];
      for (let i = 0; i < 100 && !(seen[0]?.state === 'active' && seen[0]?.wait_event === 'ClientWrite'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        seen = await ours();
      }
      assert.deepEqual(seen, [{ state: 'active', wait_event: 'ClientWrite' }]);
    } finally {
      await input.close?.();
    }
    for (let i = 0; i < 100 && (await ours()).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await ours(), [], 'the query ended with the input');
  });

  it('processors: sql_select per message, sql_raw exec_only keeps the message, sql_insert flags a failing batch', async () => {
    const t = tempTable('proc');
    await pgQuery(`CREATE TABLE ${t} (id int PRIMARY KEY, v text)`);
    const ins = await buildProcessor('sql_insert', { ...PG, table: t, columns: ['id', 'v'], args_mapping: 'root = [ this.id, this.v ]' });
    const first = await ins.process([new Message('{"id":1,"v":"one"}'), new Message('{"id":2,"v":"two"}')]);
    assert.deepEqual(
      first.flat().map((m) => [m.error, m.content.toString()]),
      [
        [undefined, '{"id":1,"v":"one"}'],
        [undefined, '{"id":2,"v":"two"}'],
      ],
    );
    const dup = await ins.process([new Message('{"id":3,"v":"three"}'), new Message('{"id":1,"v":"again"}')]);
    assert.ok(dup.flat().every((m) => /duplicate key/.test(m.error ?? '')));
    assert.equal((await pgQuery(`SELECT count(*)::int AS n FROM ${t}`))[0]!.n, 2, 'the failed batch stored nothing');
    await ins.close?.();

    const sel = await buildProcessor('sql_select', { ...PG, table: t, columns: ['v'], where: 'id = ?', args_mapping: 'root = [ this.id ]' });
    const got = await sel.process([new Message('{"id":2}'), new Message('{"id":9}'), new Message('not json')]);
    assert.deepEqual(
      got.flat().map((m) => m.content.toString()),
      ['[{"v":"two"}]', '[]', 'not json'],
    );
    assert.match(got.flat()[2]!.error ?? '', /arguments mapping failed/);
    await sel.close?.();

    const raw = await buildProcessor('sql_raw', {
      ...PG,
      query: `UPDATE ${t} SET v = $1 WHERE id = $2`,
      args_mapping: 'root = [ "changed", this.id ]',
      exec_only: true,
    });
    const upd = await raw.process([new Message('{"id":1}')]);
    assert.equal(upd.flat()[0]!.content.toString(), '{"id":1}');
    await raw.close?.();
    assert.deepEqual(await pgQuery(`SELECT v FROM ${t} WHERE id = 1`), [{ v: 'changed' }]);
  });

  it('sql_raw output: a statement per message; a failing one alone is named for a retry', async () => {
    const t = tempTable('rawout');
    const out = await buildOutput('sql_raw', {
      ...PG,
      query: `INSERT INTO ${t} (id) VALUES ($1)`,
      args_mapping: 'root = [ this.id ]',
      init_statement: `CREATE TABLE IF NOT EXISTS ${t} (id int PRIMARY KEY)`,
    });
    try {
      const err = await out.write([new Message('{"id":1}'), new Message('{"id":1}'), new Message('{"id":2}')]).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof BatchError);
      assert.deepEqual(err.indexes(), [1]);
    } finally {
      await out.close?.();
    }
    assert.deepEqual(await pgQuery(`SELECT id FROM ${t} ORDER BY id`), [{ id: 1 }, { id: 2 }]);
  });

  it('a driver not implemented is refused at start; an unreachable database is NotConnected, the password unseen', async () => {
    await assert.rejects(
      buildOutput('sql_insert', { driver: 'mssql', dsn: 'sqlserver://u:p@localhost:1433?database=db', table: 't', columns: ['a'], args_mapping: 'root = [1]' }),
      /driver mssql is not implemented here/,
    );
    const port = await freePort();
    const out = await buildOutput('sql_insert', {
      driver: 'postgres',
      dsn: `postgres://svc:hunter2@127.0.0.1:${port}/db`,
      table: 't',
      columns: ['a'],
      args_mapping: 'root = [1]',
    });
    try {
      const err = await out.connect!().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      assert.ok(err instanceof NotConnectedError, String(err));
      assert.doesNotMatch(err.message, /hunter2/);
    } finally {
      await out.close?.();
    }
  });
});
