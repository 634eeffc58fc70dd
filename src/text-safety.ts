// Pure: which characters client text may not carry (controls, line breaks in one-line fields, bidi controls, lone surrogates).

/** Why a character is refused: a message names the kind and the code point. */
export type UnsafeKind = 'control' | 'line-break' | 'bidi' | 'surrogate';

export interface UnsafeCharacter {
  kind: UnsafeKind;
  codePoint: number;
  /** Position from 1, counted in characters (code points), as a person would count. */
  position: number;
}

/** Marks, embeddings, overrides and isolates that reorder the text around them (the "Trojan Source" characters). */
const BIDI = new Set([0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);

/** Tab, line feed, carriage return and the Unicode line/paragraph separators: allowed in multi-line fields only. */
const LINE_BREAKS = new Set([0x0a, 0x0d, 0x2028, 0x2029]);

/** The kind of an unsafe code point, or null when it is fine in a field of this kind. */
export function classifyCodePoint(cp: number, multiline: boolean): UnsafeKind | null {
  if (LINE_BREAKS.has(cp)) return multiline ? null : 'line-break';
  if (cp === 0x09) return multiline ? null : 'control';
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return 'control';
  if (BIDI.has(cp)) return 'bidi';
  // for...of yields an unpaired surrogate on its own; a paired one arrives as one code point above 0xFFFF.
  if (cp >= 0xd800 && cp <= 0xdfff) return 'surrogate';
  return null;
}

/** The first character a field of this kind may not hold, or null. */
export function findUnsafeCharacter(text: string, multiline: boolean): UnsafeCharacter | null {
  let position = 0;
  for (const ch of text) {
    position++;
    const codePoint = ch.codePointAt(0) as number;
    const kind = classifyCodePoint(codePoint, multiline);
    if (kind) return { kind, codePoint, position };
  }
  return null;
}

export const formatCodePoint = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** "must not contain control characters (U+0000 at character 3)": the rule and where it broke. */
export function describeUnsafeCharacter(u: UnsafeCharacter): string {
  const where = `${formatCodePoint(u.codePoint)} at character ${u.position}`;
  switch (u.kind) {
    case 'control':
      return `must not contain control characters (${where})`;
    case 'line-break':
      return `must be a single line (${where})`;
    case 'bidi':
      return `must not contain bidirectional control characters (${where})`;
    case 'surrogate':
      return `must be valid Unicode text (an unpaired surrogate ${where})`;
  }
}
