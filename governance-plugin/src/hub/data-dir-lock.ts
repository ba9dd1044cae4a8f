/**
 * One process at a time on an embedded database folder. PGlite is PostgreSQL in a single process
 * with no postmaster to keep a second one out: two opening the same folder each write their own
 * checkpoints and the later one's clean shutdown hides the other's commits from recovery. The
 * hub (and `engine hub license`) take `<dir>.lock` holding their pid and that process's start
 * time. A lock is taken over when its holder is gone: no such process, a zombie (a hub killed with
 * SIGKILL whose parent has not reaped it yet, as in a container whose init never does), or a
 * process whose start time differs (the pid was reused by another program, or by this hub after a
 * container restart: pid namespaces count anew). This process opening its own folder twice is refused.
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

/** A process's state letter and start time (clock ticks after boot) from /proc; undefined where /proc has none. */
function procStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: fields count from its end.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: rest[0] ?? '', start: rest[19] ?? '' };
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process that wrote a lock (`pid start`, or a bare pid) still runs. */
function holderRuns(lock: string): { pid: number; runs: boolean } {
  const [pidText, start] = lock.trim().split(/\s+/);
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return { pid, runs: false };
  if (!exists(pid)) return { pid, runs: false };
  const stat = procStat(pid);
  if (stat === undefined) return { pid, runs: !existsProc() };
  if (stat.state === 'Z' || stat.state === 'X') return { pid, runs: false };
  return { pid, runs: start === undefined || start === stat.start };
}

/** Whether this system has /proc (elsewhere a live pid is all there is to go by). */
function existsProc(): boolean {
  return procStat(process.pid) !== undefined;
}

/** Takes the folder's lock; the function returned releases it. */
export function lockDataDir(dir: string): () => void {
  const path = `${resolve(dir)}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid} ${procStat(process.pid)?.start ?? ''}`.trim());
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const { pid, runs } = holderRuns(readFileSync(path, 'utf8'));
      if (runs) throw new DataDirBusyError(resolve(dir), pid);
      rmSync(path, { force: true });
    }
  }
}
