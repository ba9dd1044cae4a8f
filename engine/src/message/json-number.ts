/**
 * A number that keeps its text: Go's `json.Number`, as Benthos holds every number it reads from
 * JSON. A pipeline never changes a number it did not compute, so a number whose text a JS double
 * would not reproduce (`1234567890123456789`, `1.10`, `1e2`, `-0`) is read as a JsonNumber and
 * written back as the same text; a computation on it uses {@link JsonNumber.int} (exact int64)
 * or {@link JsonNumber.value} (the float64) and produces a new number.
 *
 * Numbers that do round-trip (safe integers in canonical form, floats as JS prints them) stay
 * plain JS numbers, so the common document costs nothing extra.
 */

const INT_TEXT = /^-?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * While json.ts's stringifyJson runs: the texts of the JsonNumbers met, in order. Each is written
 * as a placeholder string (RAW_NUMBER_MARK and its index), which stringifyJson then replaces with
 * the text: one native JSON.stringify instead of a second pass in JavaScript over the document.
 */
let rawTexts: string[] | undefined;

/** Starts collecting raw number texts (see rawTexts); returns the collector to restore after. */
export function collectRawNumbers(into: string[] | undefined): string[] | undefined {
  const prev = rawTexts;
  rawTexts = into;
  return prev;
}

/** The placeholder's prefix: a control character and a per-thread nonce, so no document string collides by chance. */
export const RAW_NUMBER_MARK = `\u0001jn${Math.random().toString(36).slice(2, 10)}:`;

export class JsonNumber {
  /** The number as it was written (or as the computation that made it prints it). */
  readonly text: string;
  /** True for an int64 a computation made (Go's int64), false for a number read from JSON (json.Number). */
  readonly computed: boolean;
  private _int: bigint | null | undefined;

  constructor(text: string, computed = false) {
    this.text = text;
    this.computed = computed;
  }

  /** An exact int64 result of a computation: a plain number when it is safe, else a JsonNumber. */
  static ofInt(n: bigint): number | JsonNumber {
    const f = Number(n);
    if (Number.isSafeInteger(f)) return f;
    const j = new JsonNumber(n.toString(), true);
    j._int = n;
    return j;
  }

  /** The float64 value (Go's `json.Number.Float64`). */
  get value(): number {
    return Number(this.text);
  }

  /**
   * The exact int64 value when the text is an integer within int64, else undefined (Go's
   * `json.Number.Int64`: `1e2`, `1.0` and integers beyond int64 are not int64s).
   */
  get int(): bigint | undefined {
    if (this._int === undefined) {
      let i: bigint | null = null;
      if (INT_TEXT.test(this.text)) {
        const b = BigInt(this.text);
        if (b >= INT64_MIN && b <= INT64_MAX) i = b;
      }
      this._int = i;
    }
    return this._int ?? undefined;
  }

  toString(): string {
    return this.text;
  }

  /** Plain JS code that meets one (`Number(n)`, `n * 2`, `n > 0`) sees the float64; `String(n)` the text. */
  valueOf(): number {
    return this.value;
  }

  /**
   * JSON.stringify cannot write a number's raw text: inside stringifyJson (json.ts) this gives a
   * placeholder that it replaces with the text; a plain JSON.stringify elsewhere gets the float64.
   */
  toJSON(): number | string {
    return rawTexts !== undefined ? RAW_NUMBER_MARK + String(rawTexts.push(this.text) - 1) : this.value;
  }
}

/**
 * The number a JSON number token stands for: a plain number when both JS and Go print it back as
 * the same text, else a JsonNumber. Go prints a float64 beyond 1e-4..1e6 with an exponent
 * (`99999999.99` as `9.999999999e+07`), so such a float keeps its text for `.string()` as Benthos'
 * json.Number does.
 */
export function numberFromText(text: string): number | JsonNumber {
  const n = Number(text);
  if (String(n) === text) {
    if (Number.isSafeInteger(n)) return n;
    const a = Math.abs(n);
    if (!Number.isInteger(n) && a >= 1e-4 && a < 1e6) return n;
  }
  return new JsonNumber(text);
}
