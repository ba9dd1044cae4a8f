/**
 * A seeded 64-bit hash of a rate limit key, as two 32-bit halves (FNV-1a and a murmur-style
 * multiply, each finished with murmur3's avalanche). Not cryptographic: the seed only keeps keys
 * from being chosen ahead of time to collide. The halves are left in `hi` and `lo` rather than
 * returned, so that a lookup allocates nothing. Never 0/0, which marks an empty bucket.
 */
export class KeyHasher {
  hi = 0;
  lo = 0;

  constructor(private readonly seed: number) {}

  hash(key: string): void {
    let a = 0x811c9dc5 ^ this.seed;
    let b = this.seed ^ 0x9e3779b9;
    for (let i = 0; i < key.length; i++) {
      const ch = key.charCodeAt(i);
      a = Math.imul(a ^ ch, 0x01000193);
      b = Math.imul(b ^ ch, 0x5bd1e995);
      b ^= b >>> 15;
    }
    this.hi = fmix(a ^ key.length) | 1;
    this.lo = fmix(b ^ Math.imul(key.length, 0x85ebca6b));
  }
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}
