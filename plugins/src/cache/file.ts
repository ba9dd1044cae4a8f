/**
 * `file` cache (Benthos'): each item is a file in `directory`, its key the path under it. No
 * expiry (ttls are ignored), as in Benthos. Unlike Benthos, a key that would leave the directory
 * (`../x`, an absolute path) is refused: a key often comes from message content.
 */
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ErrorCode, SvcError, f, registerCache, type Cache } from '@svc/engine';

const spec = f.object({
  directory: f.string().describe('The directory within which to store items.'),
});

const errno = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

export class FileCache implements Cache {
  private readonly dir: string;

  constructor(directory: string) {
    this.dir = resolve(directory);
  }

  private path(key: string): string {
    const p = resolve(join(this.dir, key));
    const rel = relative(this.dir, p);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
      throw new SvcError(ErrorCode.Processing, `file cache: key "${key}" leaves the cache directory: keys are paths under directory`);
    }
    return p;
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.path(key));
    } catch (err) {
      if (errno(err) === 'ENOENT') return undefined;
      throw err;
    }
  }

  async set(key: string, value: Buffer): Promise<void> {
    const p = this.path(key);
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, value, { mode: 0o644 });
  }

  async add(key: string, value: Buffer): Promise<boolean> {
    const p = this.path(key);
    await mkdir(dirname(p), { recursive: true });
    let fh;
    try {
      fh = await open(p, 'wx', 0o644);
    } catch (err) {
      if (errno(err) === 'EEXIST') return false;
      throw err;
    }
    try {
      await fh.writeFile(value);
    } finally {
      await fh.close();
    }
    return true;
  }

  /** As Benthos (os.Remove): deleting a key that is not there is an error. */
  async delete(key: string): Promise<void> {
    await rm(this.path(key));
  }
}

registerCache('file', {
  summary: 'Stores each item in a directory as a file, where an item ID is the path relative to the configured directory.',
  description: [
    'This type currently offers no form of item expiry or garbage collection, and is intended to be used for development and debugging purposes only.',
    'A key that would lead outside the directory (`../x`) fails the operation (Benthos would follow it).',
  ].join('\n'),
  config: spec,
  examples: ['cache_resources:\n  - label: disk\n    file:\n      directory: ./cache\n'],
  factory: (conf) => new FileCache(conf.directory),
});
