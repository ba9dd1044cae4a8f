import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message } from '../message/message.js';
import { storeResult } from '../message/result-store.js';
import { END_OF_INPUT, type Transaction } from '../message/transaction.js';
import { PushInput, type PendingRequest, type RequestSettlement } from './push-input.js';

/** A push input with its pushes exposed, as a server or an agent would make them. */
class Pushes extends PushInput {
  closedHook = 0;
  async connect(): Promise<void> {}
  send(tx: Transaction, dropped?: () => void): Promise<void> {
    return this.push({ tx, dropped });
  }
  request(batch: Message[], on: RequestSettlement): PendingRequest {
    return this.pushRequest(batch, on);
  }
  protected override onClose(): void {
    this.closedHook++;
  }
}

const tx = (text: string): Transaction => ({ batch: [new Message(Buffer.from(text))], ack: () => {} });
const textOf = (t: unknown): string => (t as Transaction).batch[0]!.content.toString();

describe('PushInput', () => {
  it('hands a push to a waiting read, queues the others in order, and holds back the push that fills the queue (maxQueued) until a read makes room', async () => {
    const input = new Pushes(2);
    const waiting = input.read();
    await input.send(tx('a'));
    assert.equal(textOf(await waiting), 'a');
    await input.send(tx('b'));
    let roomForC = false;
    const c = input.send(tx('c')).then(() => (roomForC = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(roomForC, false, 'the queue holds 2: the producer waits');
    assert.equal(textOf(input.read()), 'b');
    await c;
    assert.equal(textOf(input.read()), 'c');
  });

  it('close ends a waiting read, drops what is queued (never read), wakes a waiting producer, and calls onClose once', async () => {
    const input = new Pushes(2);
    const dropped: string[] = [];
    await input.send(tx('x'), () => dropped.push('x'));
    const held = input.send(tx('y'), () => dropped.push('y'));
    await input.close();
    await input.close();
    await held;
    assert.deepEqual(dropped, ['x', 'y']);
    assert.equal(input.read(), END_OF_INPUT);
    assert.equal(input.closedHook, 1);
    await input.closed();

    const idle = new Pushes();
    const read = idle.read();
    await idle.close();
    assert.equal(await read, END_OF_INPUT);
  });

  it('settles a request once: by its ack with the answers stored, or by expire (taken out of the queue unread), or by the drop', async () => {
    const input = new Pushes();
    const seen: string[] = [];
    const on = (name: string): RequestSettlement => ({
      acked: (err, results) => seen.push(`${name} acked ${err ? 'nack' : JSON.stringify(results())}`),
      dropped: () => seen.push(`${name} dropped`),
    });
    input.request([new Message(Buffer.from('1'))], on('one'));
    const one = (await input.read()) as Transaction;
    storeResult(one.batch[0]!, { status: 201 });
    one.ack();
    one.ack(new Error('late'));

    const two = input.request([new Message(Buffer.from('2'))], on('two'));
    assert.equal(two.expire(), true);
    assert.equal(two.expire(), false);

    input.request([new Message(Buffer.from('3'))], on('three'));
    await input.close();
    assert.equal(input.read(), END_OF_INPUT, 'the expired request was taken out of the queue');
    assert.deepEqual(seen, ['one acked [{"status":201}]', 'three dropped']);
  });
});
