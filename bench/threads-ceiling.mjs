// What two threads give on this machine for the threads benchmark's work, with no engine: the same
// JSON parse + re-serialise of the same 1 KB messages (batches of 100), done by this thread alone,
// then split between this thread and one worker (as svc's threads 2: the main thread and a worker),
// each making its own messages, nothing crossing. The ratio is the ceiling any engine could reach.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

/** Parses, touches and re-serialises `n` copies of `doc` in batches of 100; returns the bytes made. */
function work(doc, n) {
  const src = Buffer.from(doc);
  let bytes = 0;
  for (let b = 0; b < n; b += 100) {
    const batch = [];
    for (let i = 0; i < 100; i++) batch.push(Buffer.from(src));
    for (let i = 0; i < 100; i++) {
      const d = JSON.parse(batch[i].toString('utf8'));
      d.seen = true;
      batch[i] = Buffer.from(JSON.stringify(d));
      bytes += batch[i].length;
    }
  }
  return bytes;
}

/** Messages per second of `threads` (1 or 2) threads sharing `n` messages; the best of `runs`. */
async function rate(doc, n, threads, runs) {
  let best = 0;
  for (let r = 0; r < runs; r++) {
    // The worker is up and warm before the clock starts (svc's start-up is subtracted too).
    const worker = threads > 1 ? new Worker(new URL(import.meta.url), { workerData: { doc } }) : undefined;
    if (worker) await new Promise((resolve) => worker.once('message', resolve));
    work(doc, 20_000);
    const t0 = process.hrtime.bigint();
    const share = threads > 1 ? Math.round(n / 2 / 100) * 100 : n;
    const other = worker && new Promise((resolve) => worker.once('message', resolve));
    worker?.postMessage(n - share);
    work(doc, share);
    await other;
    best = Math.max(best, n / (Number(process.hrtime.bigint() - t0) / 1e9));
    await worker?.terminate();
  }
  return best;
}

/** Threads 1 and threads 2 rates of the bare work on `n` messages of `doc`, in msg/s. */
export async function ceiling(doc, n, runs = 3) {
  return { one: await rate(doc, n, 1, runs), two: await rate(doc, n, 2, runs) };
}

if (!isMainThread) {
  const { doc } = workerData;
  work(doc, 20_000);
  parentPort.postMessage('ready');
  parentPort.on('message', (n) => parentPort.postMessage(work(doc, n)));
}
