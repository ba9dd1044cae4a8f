/**
 * The SQL components on SQLite files (better-sqlite3): insert then select round trip with exact
 * 64-bit integers, blobs as text and `?` placeholders; the Go-style DSN (`file:` and `_pragma`);
 * a DSN parameter we do not implement is refused at start.
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

  it('a DSN parameter not implemented is refused at start, saying what is', async () => {
    await assert.rejects(
      buildOutput('sql_raw', { driver: 'sqlite', dsn: `file:${sqliteFile('bad')}?cache=shared&vfs=x`, query: 'SELECT 1' }),
      /vfs is not implemented here/,
    );
  });
});
