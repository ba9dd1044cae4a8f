/**
 * XXH64 (seed 0 by default), written out with BigInt because the `hash("xxhash64")` method needs
 * it and a ~60-line function is cheaper to own than a dependency. Not used on hot paths.
 */
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;
const MASK = 0xffffffffffffffffn;

function rotl(x: bigint, r: bigint): bigint {
  return ((x << r) | (x >> (64n - r))) & MASK;
}

function round(acc: bigint, lane: bigint): bigint {
  acc = (acc + lane * P2) & MASK;
  acc = rotl(acc, 31n);
  return (acc * P1) & MASK;
}

function merge(acc: bigint, val: bigint): bigint {
  acc ^= round(0n, val);
  return (acc * P1 + P4) & MASK;
}

/** The 64-bit XXH64 digest of `data`. */
export function xxhash64(data: Uint8Array, seed = 0n): bigint {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const len = data.length;
  let p = 0;
  let h: bigint;
  if (len >= 32) {
    let v1 = (seed + P1 + P2) & MASK;
    let v2 = (seed + P2) & MASK;
    let v3 = seed & MASK;
    let v4 = (seed - P1) & MASK;
    while (p + 32 <= len) {
      v1 = round(v1, view.getBigUint64(p, true));
      v2 = round(v2, view.getBigUint64(p + 8, true));
      v3 = round(v3, view.getBigUint64(p + 16, true));
      v4 = round(v4, view.getBigUint64(p + 24, true));
      p += 32;
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK;
    h = merge(h, v1);
    h = merge(h, v2);
    h = merge(h, v3);
    h = merge(h, v4);
  } else {
    h = (seed + P5) & MASK;
  }
  h = (h + BigInt(len)) & MASK;
  while (p + 8 <= len) {
    h ^= round(0n, view.getBigUint64(p, true));
    h = (rotl(h, 27n) * P1 + P4) & MASK;
    p += 8;
  }
  if (p + 4 <= len) {
    h ^= (BigInt(view.getUint32(p, true)) * P1) & MASK;
    h = (rotl(h, 23n) * P2 + P3) & MASK;
    p += 4;
  }
  while (p < len) {
    h ^= (BigInt(data[p]!) * P5) & MASK;
    h = (rotl(h, 11n) * P1) & MASK;
    p++;
  }
  h ^= h >> 33n;
  h = (h * P2) & MASK;
  h ^= h >> 29n;
  h = (h * P3) & MASK;
  h ^= h >> 32n;
  return h;
}
