// Char-scan lexer for one stripped G-code line: its command word, then its letter+number words. No regex, no allocation.

/** Char codes of the command letters a tracker dispatches on (always upper case here). */
export const CH_G = 71;
export const CH_M = 77;
export const CH_T = 84;

/** Exact powers of ten: an integer mantissa below 2^53 divided by one of these is the correctly rounded decimal. */
const POW10: readonly number[] = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** 15 significant digits always fit in a double's 53-bit mantissa. */
const MAX_FAST_DIGITS = 15;

/**
 * A reusable cursor over one line. A tracker owns one, calls `start(line)` and then `nextWord()` until it returns false,
 * reading `letter` and `value` after each word. Reusing the object keeps the per-line hot path free of garbage.
 */
export class GcodeCursor {
  /** Upper-case char code of the command letter (G, M, T ...), 0 when the line has no command word. */
  cmdLetter = 0;
  /** The command number (`G1` → 1), -1 when the letter has no number (`T` alone, `Tc`). */
  cmdCode = -1;
  /** The number after a dot (`G92.1` → 1), -1 when there is none. */
  cmdSub = -1;
  /** Upper-case char code of the last word's letter. */
  letter = 0;
  /** The last word's number; NaN when the letter had none (`G92 E`). */
  value = NaN;

  private line = '';
  private pos = 0;
  private end = 0;

  /**
   * Reads the command word. Tolerates what a stripped line should no longer have (an `N<n>` prefix, a `*<cs>` suffix).
   * Returns false when the line does not start with a letter.
   */
  start(line: string): boolean {
    this.line = line;
    let end = line.length;
    // A checksum suffix ends the command; a scan is cheaper than indexOf for the short lines seen here.
    for (let i = 0; i < end; i++) {
      if (line.charCodeAt(i) === 42 /* * */) {
        end = i;
        break;
      }
    }
    this.end = end;
    this.pos = 0;
    this.skipBlanks();
    if (this.pos < end && (line.charCodeAt(this.pos) | 0x20) === 110 /* n */) {
      // Line number prefix: skip it and the blanks after it.
      this.pos++;
      while (this.pos < end && isDigit(line.charCodeAt(this.pos))) this.pos++;
      this.skipBlanks();
    }
    if (this.pos >= end) return this.none();
    const c = upper(line.charCodeAt(this.pos));
    if (c < 65 || c > 90) return this.none();
    this.cmdLetter = c;
    this.pos++;
    this.cmdCode = this.readUint();
    this.cmdSub = -1;
    if (this.cmdCode >= 0 && this.pos < end && line.charCodeAt(this.pos) === 46 /* . */) {
      this.pos++;
      this.cmdSub = this.readUint();
    }
    return true;
  }

  /** Advances to the next word; false at the end of the line. */
  nextWord(): boolean {
    this.skipBlanks();
    if (this.pos >= this.end) return false;
    this.letter = upper(this.line.charCodeAt(this.pos));
    this.pos++;
    this.value = this.readNumber();
    return true;
  }

  private none(): false {
    this.cmdLetter = 0;
    this.cmdCode = -1;
    this.cmdSub = -1;
    return false;
  }

  private skipBlanks(): void {
    const s = this.line;
    while (this.pos < this.end) {
      const c = s.charCodeAt(this.pos);
      if (c !== 32 && c !== 9) break;
      this.pos++;
    }
  }

  /** Digits only; -1 when there are none. */
  private readUint(): number {
    const s = this.line;
    let v = -1;
    while (this.pos < this.end) {
      const d = s.charCodeAt(this.pos) - 48;
      if (d < 0 || d > 9) break;
      v = v < 0 ? d : v * 10 + d;
      this.pos++;
    }
    return v;
  }

  /**
   * A decimal in G-code form: optional sign, digits, optional dot and digits (`-.8`, `E.04524`, `+1`). Never an exponent:
   * `E` is an axis letter, so `X1E5` is X=1 then E=5. NaN when no digit follows the letter.
   */
  private readNumber(): number {
    const s = this.line;
    const end = this.end;
    const begin = this.pos;
    let i = begin;
    let neg = false;
    let c = i < end ? s.charCodeAt(i) : 0;
    if (c === 45 /* - */ || c === 43 /* + */) {
      neg = c === 45;
      i++;
    }
    let mant = 0;
    let sig = 0;
    let scale = 0;
    let dot = false;
    let digits = 0;
    let slow = false;
    for (; i < end; i++) {
      c = s.charCodeAt(i);
      const d = c - 48;
      if (d >= 0 && d <= 9) {
        digits++;
        if (mant === 0 && d === 0) {
          if (dot) scale++;
          continue;
        }
        if (sig < MAX_FAST_DIGITS) {
          mant = mant * 10 + d;
          sig++;
          if (dot) scale++;
        } else slow = true;
      } else if (c === 46 /* . */ && !dot) dot = true;
      else break;
    }
    this.pos = i;
    if (digits === 0) return NaN;
    if (slow || scale >= POW10.length) return Number(s.slice(begin, i));
    const v = scale === 0 ? mant : mant / POW10[scale]!;
    return neg ? -v : v;
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function upper(c: number): number {
  return c >= 97 && c <= 122 ? c - 32 : c;
}
