/**
 * The SQL components with the `mysql` driver against the real MariaDB (scripts/services.sh):
 * sql_insert stores a batch in one statement with exact values; sql_select and sql_raw read rows as
 * Redpanda Connect's go-sql-driver/mysql gives them (64-bit integers exact, DECIMAL and JSON as
 * text, DATETIME as text or, with parseTime, RFC 3339, NULL), 100 to a batch, then end; a select
 * closed early ends its query on the server; the processors query, insert and flag failures;
 * sql_raw as an output retries only the failed message; DSN parameters not implemented are refused
 * and an unreachable server is NotConnected without its password.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchError, END_OF_INPUT, Message, NotConnectedError, type Input, type Transaction } from '@svc/engine';
import { freePort } from '@svc/engine/testing';
import { MYSQL_DSN, buildInput, buildOutput, buildProcessor, mysqlQuery, mysqlTable } from './test-support.js';

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

const MY = { driver: 'mysql', dsn: MYSQL_DSN };

describe('sql components on MariaDB (mysql driver, real server)', () => {
  it('sql_insert: init_statement makes the table, a batch is one INSERT, 64-bit values exact', async () => {
    const t = mysqlTable('ins');
    const out = await buildOutput('sql_insert', {
      ...MY,
      table: t,
      columns: ['id', 'name', 'big'],
      args_mapping: 'root = [ this.id, this.name, this.big ]',
      init_statement: `CREATE TABLE IF NOT EXISTS ${t} (id int PRIMARY KEY, name text, big bigint)`,
      suffix: 'ON DUPLICATE KEY UPDATE id = id',
    });
    try {
      await out.connect?.();
      const batch = [1, 2, 3].map((i) => new Message(`{"id":${i},"name":"n${i}","big":922337203685477580${i}}`));
      await out.write(batch);
      await out.write(batch); // a redelivery stores nothing twice
    } finally {
      await out.close?.();
    }
    const rows = await mysqlQuery(`SELECT id, name, CAST(big AS CHAR) AS big FROM ${t} ORDER BY id`);
    assert.deepEqual(rows, [
      { id: 1, name: 'n1', big: '9223372036854775801' },
      { id: 2, name: 'n2', big: '9223372036854775802' },
      { id: 3, name: 'n3', big: '9223372036854775803' },
    ]);
  });

  it('sql_select input: rows as the Go driver gives them, where with ? placeholders, 100 a batch, then the end', async () => {
    const t = mysqlTable('sel');
    await mysqlQuery(`CREATE TABLE ${t} (id int, big bigint, amount decimal(10,2), doc json, at datetime(3), note text, raw blob)`);
    await mysqlQuery(
      `INSERT INTO ${t} WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 260)
       SELECT i, 9007199254740993, 1.50, '{"a": [1, 2]}', '2024-01-02 03:04:05.120', CASE WHEN i % 2 = 0 THEN 'even' END, 'bytes' FROM g`,
    );
    const config = { ...MY, table: t, columns: ['*'], where: 'id > ? AND id <= ?', args_mapping: 'root = [ 5, 255 ]', suffix: 'ORDER BY id' };
    const input = await buildInput('sql_select', config);
    const batches = await readAll(input);
    await input.close?.();
    assert.deepEqual(
      batches.map((b) => b.length),
      [100, 100, 50],
    );
    assert.equal(
      batches[0]![0]!.content.toString(),
      '{"id":6,"big":9007199254740993,"amount":"1.50","doc":"{\\"a\\": [1, 2]}","at":"2024-01-02 03:04:05.120","note":"even","raw":"bytes"}',
    );
    assert.equal((batches[0]![1]!.json() as { note: unknown }).note, null);
    // parseTime=true: DATETIME as Go marshals a time.Time.
    const timed = await buildInput('sql_select', { ...config, dsn: `${MYSQL_DSN}?parseTime=true`, columns: ['at'], args_mapping: 'root = [ 5, 6 ]' });
    assert.deepEqual(
      (await readAll(timed)).flat().map((m) => m.content.toString()),
      ['{"at":"2024-01-02T03:04:05.12Z"}'],
    );
    await timed.close?.();
  });

  it('sql_raw input: a select closed after its first batch ends its query on the server', async () => {
    const tag = `svc_stream_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const input = await buildInput('sql_raw', {
      ...MY,
      // About 200 MB of rows (MariaDB's sequence engine), far past what the sockets buffer.
      query: `SELECT /* ${tag} */ seq AS i, REPEAT('x', 1000) AS pad FROM seq_1_to_200000`,
    });
    const ours = async () =>
      Number(
        (
          await mysqlQuery<{ n: string }>(`SELECT COUNT(*) AS n FROM information_schema.processlist WHERE info LIKE ? AND id <> CONNECTION_ID()`, [`%${tag}%`])
        )[0]!.n,
      );
    try {
      await input.connect?.();
      const first = (await input.read()) as Transaction;
      assert.equal(first.batch.length, 100);
      assert.equal((first.batch[0]!.json() as { i: number }).i, 1);
      first.ack();
      assert.equal(await ours(), 1, 'the query is still running, its rows unread');
    } finally {
      await input.close?.();
    }
    for (let i = 0; i < 100 && (await ours()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await ours(), 0, 'the query ended with the input');
  });

  it('processors: sql_select per message, sql_raw exec_only keeps the message, sql_insert flags a failing batch', async () => {
    const t = mysqlTable('proc');
    await mysqlQuery(`CREATE TABLE ${t} (id int PRIMARY KEY, v text)`);
    const ins = await buildProcessor('sql_insert', { ...MY, table: t, columns: ['id', 'v'], args_mapping: 'root = [ this.id, this.v ]' });
    const first = await ins.process([new Message('{"id":1,"v":"one"}'), new Message('{"id":2,"v":"two"}')]);
    assert.deepEqual(
      first.flat().map((m) => m.error),
      [undefined, undefined],
    );
    const dup = await ins.process([new Message('{"id":3,"v":"three"}'), new Message('{"id":1,"v":"again"}')]);
    assert.ok(
      dup.flat().every((m) => /Duplicate entry/.test(m.error ?? '')),
      String(dup.flat()[0]!.error),
    );
    assert.equal(Number((await mysqlQuery<{ n: string }>(`SELECT COUNT(*) AS n FROM ${t}`))[0]!.n), 2, 'the failed batch stored nothing');
    await ins.close?.();

    const sel = await buildProcessor('sql_select', { ...MY, table: t, columns: ['v'], where: 'id = ?', args_mapping: 'root = [ this.id ]' });
    const got = await sel.process([new Message('{"id":2}'), new Message('{"id":9}')]);
    assert.deepEqual(
      got.flat().map((m) => m.content.toString()),
      ['[{"v":"two"}]', '[]'],
    );
    await sel.close?.();

    const raw = await buildProcessor('sql_raw', {
      ...MY,
      query: `UPDATE ${t} SET v = ? WHERE id = ?`,
      args_mapping: 'root = [ "changed", this.id ]',
      exec_only: true,
    });
    const upd = await raw.process([new Message('{"id":1}')]);
    assert.equal(upd.flat()[0]!.content.toString(), '{"id":1}');
    await raw.close?.();
    assert.deepEqual(await mysqlQuery(`SELECT v FROM ${t} WHERE id = 1`), [{ v: 'changed' }]);
  });

  it('sql_raw output: a statement per message; a failing one alone is named for a retry; values are data', async () => {
    const t = mysqlTable('rawout');
    const out = await buildOutput('sql_raw', {
      ...MY,
      query: `INSERT INTO ${t} (id, v) VALUES (?, ?)`,
      args_mapping: 'root = [ this.id, this.v ]',
      init_statement: `CREATE TABLE IF NOT EXISTS ${t} (id int PRIMARY KEY, v text)`,
    });
    try {
      const batch = [new Message('{"id":1,"v":"a"}'), new Message('{"id":1,"v":"b"}'), new Message(`{"id":2,"v":"x'); DROP TABLE ${t}; --"}`)];
      const err = await out.write(batch).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof BatchError, String(err));
      assert.deepEqual(err.indexes(), [1]);
    } finally {
      await out.close?.();
    }
    assert.deepEqual(await mysqlQuery(`SELECT id, v FROM ${t} ORDER BY id`), [
      { id: 1, v: 'a' },
      { id: 2, v: `x'); DROP TABLE ${t}; --` },
    ]);
  });

  it('a DSN parameter not implemented is refused at start; an unreachable server is NotConnected, the password unseen', async () => {
    await assert.rejects(
      buildOutput('sql_insert', { ...MY, dsn: `${MYSQL_DSN}?tls=custom`, table: 't', columns: ['a'], args_mapping: 'root = [1]' }),
      /parameter tls is not implemented here/,
    );
    const port = await freePort();
    const out = await buildOutput('sql_insert', {
      driver: 'mysql',
      dsn: `svc:hunter2@tcp(127.0.0.1:${port})/db`,
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
