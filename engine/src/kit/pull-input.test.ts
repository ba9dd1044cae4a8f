import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message } from '../message/message.js';
import { END_OF_INPUT, type Transaction } from '../message/transaction.js';
import { PullInput } from './pull-input.js';

/** A pull input over a list of texts, with its fetcher's calls exposed (as a consume loop makes them). */
class Pulls extends PullInput<string> {
  readonly settled: Array<string | undefined> = [];
  shutDowns = 0;
  /** How long shutDown waits for acks. */
  drainMs = 5_000;

  give(...texts: string[]): void {
    this.offer(...texts);
  }
  waitForRoom(): Promise<void> {
    return this.room();
  }
  get out(): number {
    return this.outstanding;
  }
  protected transaction(items: string[]): Transaction {
    return this.track(
      items.map((t) => new Message(Buffer.from(t))),
      (err) => this.settled.push(err?.message),
    );
  }
  protected async shutDown(): Promise<void> {
    this.shutDowns++;
    await this.acksSettled(this.drainMs);
  }
}

const texts = (t: unknown): string[] => (t as Transaction).batch.map((m) => m.content.toString());
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('PullInput', () => {
  it('hands what was offered out in order, up to perTransaction items a transaction, and a read waits for the next offer', async () => {
    const input = new Pulls(2);
    input.give('a', 'b', 'c');
    assert.deepEqual(texts(await input.read()), ['a', 'b']);
    assert.deepEqual(texts(await input.read()), ['c']);
    const next = input.read();
    input.give('d');
    assert.deepEqual(texts(await next), ['d']);
  });

  it('counts a transaction out until its first ack; the ack tells the source once, and wakes a fetcher waiting for room', async () => {
    const input = new Pulls();
    input.give('a');
    const tx = (await input.read()) as Transaction;
    assert.equal(input.out, 1);
    let woken = false;
    void input.waitForRoom().then(() => (woken = true));
    tx.ack(new Error('nacked'));
    tx.ack();
    await turn();
    assert.equal(woken, true);
    assert.equal(input.out, 0);
    assert.deepEqual(input.settled, ['nacked']);
  });

  it('close() ends a waiting read with END_OF_INPUT, wakes fetchers, waits for the acks in flight and shuts down once', async () => {
    const input = new Pulls();
    input.give('a');
    const tx = (await input.read()) as Transaction;
    const waiting = input.read();
    let fetcherWoken = false;
    void input.waitForRoom().then(() => (fetcherWoken = true));
    let closed = false;
    const closing = input.close().then(() => (closed = true));
    const again = input.close();
    assert.equal(await waiting, END_OF_INPUT);
    await turn();
    assert.equal(fetcherWoken, true);
    assert.equal(closed, false, 'a transaction is still out');
    tx.ack();
    await Promise.all([closing, again]);
    assert.equal(input.shutDowns, 1);
    assert.equal(await input.read(), END_OF_INPUT);
  });

  it('close() stops waiting for acks after its bound', async () => {
    const input = new Pulls();
    input.drainMs = 20;
    input.give('a');
    await input.read();
    await input.close();
    assert.equal(input.out, 1);
  });
});
