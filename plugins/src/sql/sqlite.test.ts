/**
 * The SQL components on SQLite files (better-sqlite3): insert then select round trip with exact
 * 64-bit integers, blobs as text and `?` placeholders; the Go-style DSN (`file:` and `_pragma`);
 * batches written at once are acknowledged exactly when stored; a DSN parameter we do not
 * implement is refused at start.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { END_OF_INPUT, Message, type Transaction } from '@svc/engine';
import { buildInput, buildOutput, buildProcessor, sqliteFile } from './test-support.js';

describe('sql components on SQLite', () => {
  it('sql_insert then sql_select: exact integers, text, null, a where with ?', async () => {
    const dsn = `file:${sqliteFile('rt')}?_pragma=journal_mode(WAL)`;
    const out = await buildOutput('sql_insert', {
      driver: 'sqlite',
      dsn,
      table: 'items',
      columns: ['id', 'big', 'name', 'flag'],
      args_mapping: 'root = [ this.id, this.big, this.name, this.flag ]',
      init_statement: 'CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, big INTEGER, name TEXT, flag INTEGER)',
    });
    try {
      await out.write([
        new Message('{"id":1,"big":9223372036854775807,"name":"a","flag":true}'),
        new Message('{"id":2,"big":-5,"name":null,"flag":false}'),
        new Message('{"id":3,"big":1.5,"name":"c","flag":null}'),
      ]);
    } finally {
      await out.close?.();
    }
    const input = await buildInput('sql_select', {
      driver: 'sqlite',
      dsn,
      table: 'items',
      columns: ['*'],
      where: 'id < ?',
      args_mapping: 'root = [ 3 ]',
      suffix: 'ORDER BY id',
    });
    await input.connect?.();
    const t = (await input.read()) as Transaction;
    assert.deepEqual(
      t.batch.map((m) => m.content.toString()),
      ['{"id":1,"big":9223372036854775807,"name":"a","flag":1}', '{"id":2,"big":-5,"name":null,"flag":0}'],
    );
    assert.equal(await input.read(), END_OF_INPUT);
    await input.close?.();
    const raw = await buildProcessor('sql_raw', { driver: 'sqlite', dsn, query: 'SELECT big FROM items WHERE id = ?', args_mapping: 'root = [ this.id ]' });
    const got = await raw.process([new Message('{"id":3}')]);
    assert.equal(got.flat()[0]!.content.toString(), '[{"big":1.5}]');
    await raw.close?.();
  });

  it('sql_insert batches written at once: each is acknowledged exactly when its rows are stored', async () => {
    const dsn = `file:${sqliteFile('group')}?_pragma=journal_mode(WAL)`;
    const out = await buildOutput('sql_insert', {
      driver: 'sqlite',
      dsn,
      table: 'g',
      columns: ['id'],
      args_mapping: 'root = [ this.id ]',
      init_statement: [
        'CREATE TABLE IF NOT EXISTS g (id INTEGER PRIMARY KEY);',
        // id 666 undoes the whole transaction it is in, not only its statement.
        "CREATE TRIGGER IF NOT EXISTS no666 BEFORE INSERT ON g WHEN NEW.id = 666 BEGIN SELECT RAISE(ROLLBACK, 'no 666'); END;",
      ].join('\n'),
    });
    const stored = async () => {
      const input = await buildInput('sql_raw', { driver: 'sqlite', dsn, query: 'SELECT id FROM g ORDER BY id' });
      await input.connect?.();
      const ids: number[] = [];
      for (let t = await input.read(); t !== END_OF_INPUT; t = await input.read())
        ids.push(...(t as Transaction).batch.map((m) => (m.json() as { id: number }).id));
      await input.close?.();
      return ids;
    };
    const batch = (...ids: number[]) => ids.map((id) => new Message(`{"id":${id}}`));
    try {
      // A duplicate key fails its own batch only; the batches around it are stored.
      const first = await Promise.allSettled([out.write(batch(1, 2)), out.write(batch(3, 1)), out.write(batch(4, 5))]);
      assert.deepEqual(
        first.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.match(String((first[1] as PromiseRejectedResult).reason), /UNIQUE constraint failed/);
      assert.deepEqual(await stored(), [1, 2, 4, 5]);
      // A rollback of the whole transaction: whatever was acknowledged is stored, whatever was
      // rejected is not (and goes back to its input to be written again).
      const second = [batch(10, 11), batch(12, 666), batch(13, 14)];
      const results = await Promise.allSettled(second.map((b) => out.write(b)));
      assert.equal(results[1]!.status, 'rejected');
      const now = await stored();
      for (let i = 0; i < second.length; i++) {
        const ids = second[i]!.map((m) => (m.json() as { id: number }).id).filter((id) => id !== 666);
        const present = ids.filter((id) => now.includes(id));
        assert.deepEqual(present, results[i]!.status === 'fulfilled' ? ids : [], `batch ${i}: ${results[i]!.status}, stored ${JSON.stringify(present)}`);
      }
      // The connection is usable after it.
      await out.write(batch(20));
      assert.ok((await stored()).includes(20));
    } finally {
      await out.close?.();
    }
  });

  it('a DSN parameter not implemented is refused at start, saying what is', async () => {
    await assert.rejects(
      buildOutput('sql_raw', { driver: 'sqlite', dsn: `file:${sqliteFile('bad')}?cache=shared&vfs=x`, query: 'SELECT 1' }),
      /vfs is not implemented here/,
    );
  });
});
