/**
 * MurmurHash3 as Tyk hashes keys with it (github.com/TykTechnologies/murmur3, the fork Tyk
 * v5.14.0 uses): hex of the big-endian digest, seed 0.
 *
 * - `murmur32`: the fork's 32-bit `Sum()` returns the running hash over the whole 4-byte blocks
 *   only, without the tail and without the finalisation (`Sum32()` has them; `Sum()` does not).
 *   Tyk's `HashStr` calls `Sum()`, so a key stored by Tyk with murmur32 is named by that value,
 *   and so is ours: "hello" → `ef13efcd`, "a" → `00000000`.
 * - `murmur128`: x64_128, h1 then h2, each big-endian; `murmur64`: its h1.
 *
 * Written here (about 60 lines) rather than taken from a package: none of the small npm ones
 * reproduces the fork's 32-bit `Sum()`, which is what matters.
 */
const C1_32 = 0xcc9e2d51;
const C2_32 = 0x1b873593;

/** Tyk's murmur32 key hash: the unfinalised running hash of the whole 4-byte blocks. */
export function murmur32Tyk(data: Uint8Array): string {
  let h1 = 0;
  const blocks = data.length >>> 2;
  for (let i = 0; i < blocks; i++) {
    const o = i * 4;
    let k1 = data[o]! | (data[o + 1]! << 8) | (data[o + 2]! << 16) | (data[o + 3]! << 24);
    k1 = Math.imul(k1, C1_32);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, C2_32);
    h1 ^= k1;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
  }
  return (h1 >>> 0).toString(16).padStart(8, '0');
}

const M64 = (1n << 64n) - 1n;
const C1_128 = 0x87c37b91114253d5n;
const C2_128 = 0x4cf5ad432745937fn;
const rotl64 = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & M64;
const mul64 = (a: bigint, b: bigint): bigint => (a * b) & M64;

function fmix64(k: bigint): bigint {
  k ^= k >> 33n;
  k = mul64(k, 0xff51afd7ed558ccdn);
  k ^= k >> 33n;
  k = mul64(k, 0xc4ceb9fe1a85ec53n);
  k ^= k >> 33n;
  return k;
}

function readLE64(data: Uint8Array, o: number, n = 8): bigint {
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(data[o + i]!);
  return v;
}

/** MurmurHash3 x64_128 (seed 0): [h1, h2]. */
export function murmur128(data: Uint8Array): [bigint, bigint] {
  let h1 = 0n;
  let h2 = 0n;
  const blocks = Math.floor(data.length / 16);
  for (let i = 0; i < blocks; i++) {
    let k1 = readLE64(data, i * 16);
    let k2 = readLE64(data, i * 16 + 8);
    k1 = mul64(rotl64(mul64(k1, C1_128), 31n), C2_128);
    h1 ^= k1;
    h1 = (mul64(rotl64(h1, 27n) + h2, 5n) + 0x52dce729n) & M64;
    k2 = mul64(rotl64(mul64(k2, C2_128), 33n), C1_128);
    h2 ^= k2;
    h2 = (mul64(rotl64(h2, 31n) + h1, 5n) + 0x38495ab5n) & M64;
  }
  const tail = blocks * 16;
  const rest = data.length - tail;
  if (rest > 8) {
    const k2 = mul64(rotl64(mul64(readLE64(data, tail + 8, rest - 8), C2_128), 33n), C1_128);
    h2 ^= k2;
  }
  if (rest > 0) {
    const k1 = mul64(rotl64(mul64(readLE64(data, tail, Math.min(rest, 8)), C1_128), 31n), C2_128);
    h1 ^= k1;
  }
  const len = BigInt(data.length);
  h1 ^= len;
  h2 ^= len;
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  return [h1, h2];
}

const hex64 = (v: bigint): string => v.toString(16).padStart(16, '0');

export function murmur64Hex(data: Uint8Array): string {
  return hex64(murmur128(data)[0]);
}

export function murmur128Hex(data: Uint8Array): string {
  const [h1, h2] = murmur128(data);
  return hex64(h1) + hex64(h2);
}
