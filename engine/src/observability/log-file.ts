/**
 * `logger.file` (Benthos' field): log lines appended to a file instead of stderr. With `rotate`,
 * as Benthos (lumberjack with MaxSize 10 MB, MaxBackups 1, Compress): once a line would take the
 * file past 10 MB it is renamed `NAME-<UTC time>.EXT`, gzipped to `.gz`, and a new file begun;
 * one backup is kept, and with `rotate_max_age_days` > 0 a backup older than that is deleted.
 *
 * Lines are written synchronously (a log line is never lost to a crash that follows it). Only the
 * thread that opened the file first in a process rotates; pipeline workers append and, at most
 * once a second, reopen the path when it was rotated under them.
 */
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';
import type { LogSink } from './logger.js';

const MAX_SIZE = 10 * 1024 * 1024;
const MAX_BACKUPS = 1;
const REOPEN_CHECK_MS = 1000;

export interface LogFileConfig {
  path: string;
  rotate: boolean;
  rotate_max_age_days: number;
}

/** lumberjack's backup name: `name-2006-01-02T15-04-05.000.ext`, in UTC. */
function backupName(path: string, at: Date): string {
  const ext = extname(path);
  const stem = basename(path, ext);
  const stamp = at.toISOString().replace(/:/g, '-').replace(/Z$/, '');
  return join(dirname(path), `${stem}-${stamp}${ext}`);
}

export class FileLogSink implements LogSink {
  private fd: number;
  private ino: number;
  private size: number;
  private checked = Date.now();

  constructor(
    private readonly conf: LogFileConfig,
    private readonly rotates = conf.rotate && isMainThread,
  ) {
    try {
      this.fd = openSync(conf.path, 'a', 0o666);
    } catch (err) {
      throw new SvcError(ErrorCode.ConfigFile, `cannot open the log file of logger.file.path: ${errorMessage(err)}`);
    }
    const st = fstatSync(this.fd);
    this.ino = st.ino;
    this.size = st.size;
  }

  write(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.rotates && this.size + bytes > MAX_SIZE && this.size > 0) this.rotate();
    else if (!this.rotates && this.conf.rotate) this.reopenIfMoved();
    writeSync(this.fd, line);
    this.size += bytes;
  }

  private reopenIfMoved(): void {
    const now = Date.now();
    if (now - this.checked < REOPEN_CHECK_MS) return;
    this.checked = now;
    let ino: number | undefined;
    try {
      ino = statSync(this.conf.path).ino;
    } catch {
      ino = undefined;
    }
    if (ino === this.ino) return;
    closeSync(this.fd);
    this.fd = openSync(this.conf.path, 'a', 0o666);
    this.ino = fstatSync(this.fd).ino;
  }

  private rotate(): void {
    closeSync(this.fd);
    const backup = backupName(this.conf.path, new Date());
    renameSync(this.conf.path, backup);
    this.fd = openSync(this.conf.path, 'a', 0o666);
    this.ino = fstatSync(this.fd).ino;
    this.size = 0;
    try {
      writeFileSync(`${backup}.gz`, gzipSync(readFileSync(backup)));
      unlinkSync(backup);
    } catch {
      // Kept uncompressed: a backup is never lost for want of room to compress it.
    }
    this.prune();
  }

  /** Keeps the newest MAX_BACKUPS backups, and none older than rotate_max_age_days. */
  private prune(): void {
    const dir = dirname(this.conf.path);
    const ext = extname(this.conf.path);
    const prefix = `${basename(this.conf.path, ext)}-`;
    const backups = readdirSync(dir)
      .filter((n) => n.startsWith(prefix) && (n.endsWith(`${ext}.gz`) || n.endsWith(ext)) && n !== basename(this.conf.path))
      .sort()
      .reverse();
    const maxAgeMs = this.conf.rotate_max_age_days * 86_400_000;
    backups.forEach((name, i) => {
      const p = join(dir, name);
      const old = maxAgeMs > 0 && Date.now() - statSync(p).mtimeMs > maxAgeMs;
      if (i >= MAX_BACKUPS || old) unlinkSync(p);
    });
  }
}
