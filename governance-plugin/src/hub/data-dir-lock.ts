/**
 * One process at a time on an embedded database folder. PGlite is PostgreSQL in a single process
 * with no postmaster to keep a second one out: two opening the same folder each write their own
 * checkpoints and the later one's clean shutdown hides the other's commits from recovery. The
 * hub (and `engine hub license`) take `<dir>.lock` holding their pid; a lock whose process is gone
 * (a hub killed with SIGKILL) is taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';

export class DataDirBusyError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`the embedded database ${dir} is in use by process ${pid} (a running hub)`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the folder's lock; the function returned releases it. */
export function lockDataDir(dir: string): () => void {
  const path = `${resolve(dir)}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) throw new DataDirBusyError(resolve(dir), pid);
      rmSync(path, { force: true });
    }
  }
}
