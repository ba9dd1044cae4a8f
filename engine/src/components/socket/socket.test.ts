/**
 * The socket components over real loopback sockets: the `socket` output into `socket_server`
 * (tcp, unix, udp) delivers every message once and in order, the bound address of port 0 goes to
 * `address_cache`; the `socket` input reads lines, sends its open message, and connects again
 * when the server closes; both sides interoperate with Benthos v4.51 (when it is built).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { END_OF_INPUT, Message, registry, type Cache, type Input, type Transaction } from '@svc/engine';
import { freePort, lintValue, testContext } from '@svc/engine/testing';
import { buildInput, buildOutput } from '../io/test-context.js';
import './index.js';
import { benthosMissing, linesOf, peerProcess, waitListening, type Running } from './test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-socket-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Reads transactions until `n` messages arrived; their contents. */
async function readN(input: Input, n: number): Promise<string[]> {
  const got: string[] = [];
  while (got.length < n) {
    const t = await input.read();
    if (t === END_OF_INPUT) break;
    got.push(...(t as Transaction).batch.map((m) => m.content.toString()));
    (t as Transaction).ack();
  }
  return got;
}

const messages = (n: number) => Array.from({ length: n }, (_, i) => `message ${i}`);

describe('socket components (loopback)', () => {
  for (const network of ['tcp', 'unix'] as const) {
    it(`${network}: 1,000 messages from the socket output to socket_server, each once, in order`, async () => {
      const address = network === 'tcp' ? `127.0.0.1:${await freePort()}` : join(dir, `s-${Math.random().toString(36).slice(2)}.sock`);
      const server = await buildInput('socket_server', { network, address });
      await server.connect?.();
      const out = await buildOutput('socket', { network, address });
      try {
        await out.connect?.();
        const all = messages(1000);
        for (let i = 0; i < all.length; i += 100) await out.write(all.slice(i, i + 100).map((s) => new Message(s)));
        assert.deepEqual(await readN(server, 1000), all);
      } finally {
        await out.close?.();
        await server.close?.();
      }
    });
  }

  it('udp: datagrams arrive as messages; port 0 is written to address_cache under the label', async () => {
    const store = new Map<string, Buffer>();
    const cache: Cache = { get: (k) => store.get(k), set: (k, v) => void store.set(k, v), add: () => false, delete: (k) => void store.delete(k) };
    const ctx = { ...testContext({ type: 'socket_server', resources: { cache: { addr: cache } } }), label: 'in' };
    const server = await buildInput('socket_server', { network: 'udp', address: '127.0.0.1:0', address_cache: 'addr' }, ctx);
    await server.connect?.();
    try {
      const address = store.get('in_address')?.toString() ?? '';
      assert.match(address, /^127\.0\.0\.1:\d+$/);
      const out = await buildOutput('socket', { network: 'udp', address });
      await out.connect?.();
      await out.write(messages(50).map((s) => new Message(s)));
      assert.deepEqual(await readN(server, 50), messages(50));
      await out.close?.();
    } finally {
      await server.close?.();
    }
  });

  it('socket input: sends the open message, reads lines, connects again when the server hangs up', async () => {
    const port = await freePort();
    const opened: string[] = [];
    let connections = 0;
    const server = createServer((s: Socket) => {
      connections++;
      s.once('data', (d) => {
        opened.push(d.toString());
        s.end(connections === 1 ? 'a\nb\n' : 'c\n');
      });
    });
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    const input = await buildInput('socket', { network: 'tcp', address: `127.0.0.1:${port}`, open_message_mapping: 'root = "hello"' });
    try {
      await input.connect?.();
      assert.deepEqual(await readN(input, 2), ['a', 'b']);
      await assert.rejects(Promise.resolve(input.read()), /closed the connection/);
      await input.connect?.();
      assert.deepEqual(await readN(input, 1), ['c']);
      assert.deepEqual(opened, ['hello', 'hello']);
    } finally {
      await input.close?.();
      server.close();
    }
  });

  it('a config we do not implement is refused (unixgram at lint, saying why and what to use; a codec at start)', async () => {
    const spec = registry().get('input', 'socket_server')!.spec.config;
    assert.match(
      lintValue(spec, { network: 'unixgram', address: join(dir, 'g.sock') }).join(),
      /network unixgram is not implemented here \(Node has no unix datagram sockets.*use unix \(a stream socket\), tcp, tls or udp/,
    );
    await assert.rejects(buildInput('socket_server', { network: 'unixgram', address: join(dir, 'g.sock') }), /unixgram is not implemented/);
    await assert.rejects(buildOutput('socket', { network: 'tcp', address: '127.0.0.1:1', codec: 'csv' }), /codec csv is not implemented/);
  });

  it('two engines over tcp, and each against Benthos v4.51: 1,000 lines, each once', async (t) => {
    const pairs: Array<['svc' | 'benthos', 'svc' | 'benthos']> = [['svc', 'svc']];
    if (!benthosMissing) pairs.push(['svc', 'benthos'], ['benthos', 'svc']);
    else t.diagnostic(`${benthosMissing}: only svc to svc`);
    for (const [sender, receiver] of pairs) {
      const address = `127.0.0.1:${await freePort()}`;
      const recv = receiverProcess(receiver, address);
      try {
        await waitListening(address);
        const send = senderProcess(sender, address);
        assert.equal(await send.exited, 0, send.output());
        const lines = await recv.lines(1000);
        assert.deepEqual(
          lines,
          messages(1000).map((m) => JSON.stringify({ m })),
          `${sender} → ${receiver}`,
        );
      } finally {
        recv.stop();
      }
    }
  });
});

const SEND = (address: string) => `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = {"m": "message " + (count("c") - 1).string()}', interval: '', count: 1000, batch_size: 50 }
output:
  socket: { network: tcp, address: "${address}" }
`;

const RECEIVE = (address: string) => `http: { enabled: false }
logger: { level: WARN }
input:
  socket_server: { network: tcp, address: "${address}" }
output:
  stdout: {}
`;

function senderProcess(which: 'svc' | 'benthos', address: string): Running {
  return peerProcess(which, SEND(address));
}

function receiverProcess(which: 'svc' | 'benthos', address: string): { lines(n: number): Promise<string[]>; stop(): void } {
  return linesOf(peerProcess(which, RECEIVE(address)));
}
