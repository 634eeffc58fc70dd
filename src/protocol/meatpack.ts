// MeatPack, the host side (Marlin's MEATPACK_ON_SERIAL_PORT_*, Prusa-Firmware): pack G-code lines two characters a byte.
//
// Facts of the wire, from the public description of the scheme (Scott Mudge's MeatPack, Marlin's feature/meatpack):
// - 15 characters have a 4-bit code: '0'..'9' = 0..9, '.' = 10, ' ' = 11, '\n' = 12, 'G' = 13, 'X' = 14. Code 15
//   (0b1111) says "this character did not pack: it follows in the stream as a whole byte".
// - Two characters make one byte: the first in the low nibble, the second in the high nibble. Literal characters
//   follow their byte in order (first, then second).
// - In no-spaces mode the firmware reads code 11 as 'E' instead of ' ': the host drops the spaces and 'E' packs.
// - When the first character of a byte is '\n' the firmware ignores the second nibble: a line of odd length ends with
//   '\n' in a low nibble and padding above it, and no pair ever straddles two lines.
// - Control: two 0xFF bytes then a command byte. Packed data never holds two 0xFF in a row (0xFF is followed by two
//   ASCII literals). Every command makes the firmware report its state: `[MP] PV01 ON NSP` (packing on/off, no-spaces
//   NSP or spaces kept ESP). Packing starts off after a reset.

export const MP_SIGNAL = 0xff;

/** Command bytes that follow two MP_SIGNAL bytes. */
export const MeatPackCommand = {
  togglePacking: 0xfd,
  enablePacking: 0xfb,
  disablePacking: 0xfa,
  resetAll: 0xf9,
  queryConfig: 0xf8,
  enableNoSpaces: 0xf7,
  disableNoSpaces: 0xf6,
} as const;
export type MeatPackCommandByte = (typeof MeatPackCommand)[keyof typeof MeatPackCommand];

const LITERAL = 0xf;
const NEWLINE_CODE = 12;

function codeTable(noSpaces: boolean): Int8Array {
  const t = new Int8Array(128).fill(-1);
  for (let d = 0; d <= 9; d++) t[48 + d] = d;
  t[46 /* . */] = 10;
  t[noSpaces ? 69 /* E */ : 32 /* space */] = 11;
  t[10 /* \n */] = NEWLINE_CODE;
  t[71 /* G */] = 13;
  t[88 /* X */] = 14;
  return t;
}
const CODES_SPACES = codeTable(false);
const CODES_NO_SPACES = codeTable(true);

/** The three bytes of one MeatPack command. */
export function meatpackCommand(cmd: MeatPackCommandByte): Buffer {
  return Buffer.from([MP_SIGNAL, MP_SIGNAL, cmd]);
}

/**
 * The largest packed size of `chars` characters: every pair of literals costs three bytes. Callers size buffers with
 * it (each line is packed on its own, so a line of odd length rounds up).
 */
export function packedSizeBound(chars: number): number {
  return Math.ceil(chars / 2) * 3;
}

/**
 * Packs `text[start, end)`, one whole line ending in '\n', into `out` at `at`; returns the offset after it. Characters
 * must be ASCII (the framing refuses anything else). In no-spaces mode a space left in the line goes as a literal.
 */
export function packLineInto(text: string, start: number, end: number, noSpaces: boolean, out: Buffer, at: number): number {
  const codes = noSpaces ? CODES_NO_SPACES : CODES_SPACES;
  let o = at;
  for (let i = start; i < end; i += 2) {
    const c1 = text.charCodeAt(i);
    // An odd count: the line's '\n' sits alone in the low nibble; the firmware ignores what is above it.
    const c2 = i + 1 < end ? text.charCodeAt(i + 1) : 10;
    const k1 = c1 < 128 ? codes[c1]! : -1;
    const k2 = c2 < 128 ? codes[c2]! : -1;
    if (k1 >= 0 && k2 >= 0) {
      out[o++] = (k2 << 4) | k1;
    } else if (k1 >= 0) {
      out[o++] = (LITERAL << 4) | k1;
      out[o++] = c2;
    } else if (k2 >= 0) {
      out[o++] = (k2 << 4) | LITERAL;
      out[o++] = c1;
    } else {
      out[o++] = 0xff;
      out[o++] = c1;
      out[o++] = c2;
    }
  }
  return o;
}

/** The packed size of one whole line (ending in '\n'), without packing it. */
export function packedLength(line: string, noSpaces: boolean): number {
  const codes = noSpaces ? CODES_NO_SPACES : CODES_SPACES;
  let n = 0;
  for (let i = 0; i < line.length; i += 2) {
    const c1 = line.charCodeAt(i);
    const c2 = i + 1 < line.length ? line.charCodeAt(i + 1) : 10;
    n += 1 + (c1 < 128 && codes[c1]! >= 0 ? 0 : 1) + (c2 < 128 && codes[c2]! >= 0 ? 0 : 1);
  }
  return n;
}

/** One line (ending in '\n') packed into a new Buffer. */
export function packLine(line: string, noSpaces: boolean): Buffer {
  const out = Buffer.allocUnsafe(packedSizeBound(line.length));
  const end = packLineInto(line, 0, line.length, noSpaces, out, 0);
  return out.subarray(0, end);
}

/** Index of the command word in a line: after an `N<digits>` word and the blanks behind it. */
function commandStart(line: string, start: number, end: number): number {
  let i = start;
  if (line.charCodeAt(i) === 78 /* N */) {
    i++;
    while (i < end && line.charCodeAt(i) >= 48 && line.charCodeAt(i) <= 57) i++;
    while (i < end && line.charCodeAt(i) === 32) i++;
  }
  return i;
}

/** Whether the line's command is `<letter><digits>` exactly (`M108` but not `M1080`), case-insensitive. */
function commandIs(line: string, start: number, end: number, letter: number, digits: string): boolean {
  const i = commandStart(line, start, end);
  if ((line.charCodeAt(i) | 0x20) !== (letter | 0x20)) return false;
  for (let k = 0; k < digits.length; k++) if (line.charCodeAt(i + 1 + k) !== digits.charCodeAt(k)) return false;
  const after = line.charCodeAt(i + 1 + digits.length);
  return !(after >= 48 && after <= 57) && !(after === 46 /* . */);
}

/** Commands Marlin's emergency parser acts on as their bytes arrive (before MeatPack unpacks anything). */
export function isEmergencyLine(line: string, start = 0, end = line.length): boolean {
  return commandIs(line, start, end, 77, '108') || commandIs(line, start, end, 77, '112') || commandIs(line, start, end, 77, '410');
}

/**
 * Whether spaces may be dropped from this line in no-spaces mode: only moves (G0-G3), whose words are all a letter and
 * a number, so `G1X10E5` reads as `G1 X10 E5`. Text-carrying commands (M117 messages, file names) keep their spaces
 * (they go as literals), like the public host plugin's choice of the move commands that make up nearly all of a print.
 */
export function spacesDroppable(line: string, start = 0, end = line.length): boolean {
  const i = commandStart(line, start, end);
  if ((line.charCodeAt(i) | 0x20) !== 103 /* g */) return false;
  const d = line.charCodeAt(i + 1);
  if (d < 48 || d > 51) return false;
  const after = line.charCodeAt(i + 2);
  return !(after >= 48 && after <= 57) && after !== 46;
}

/**
 * The line as the firmware must see it in no-spaces mode: `N12 G1 X1 E2*cs\n` becomes `N12G1X1E2*<cs'>\n`, its checksum
 * computed again over what is left (the firmware checks the line as unpacked, without the spaces). Lines whose spaces
 * matter, and lines without a checksum, are returned as they are.
 */
export function dropSpaces(line: string, start = 0, end = line.length): string {
  const whole = start === 0 && end === line.length;
  if (!spacesDroppable(line, start, end)) return whole ? line : line.slice(start, end);
  let star = -1;
  for (let i = end - 1; i >= start; i--) {
    if (line.charCodeAt(i) === 42 /* * */) {
      star = i;
      break;
    }
  }
  let body = '';
  let cs = 0;
  const bodyEnd = star >= 0 ? star : end;
  for (let i = start; i < bodyEnd; i++) {
    const c = line.charCodeAt(i);
    if (c === 32 || c === 10) continue;
    body += line[i];
    cs ^= c;
  }
  if (star < 0) return body + '\n';
  return body + '*' + cs + '\n';
}

/** The firmware's state report, `[MP] PV01 ON NSP`; null for any other line. */
export interface MeatPackReport {
  active: boolean;
  noSpaces: boolean;
}

export function parseMeatPackReport(line: string): MeatPackReport | null {
  const m = /^\[MP\]\s+\S+\s+(ON|OFF)\s+(NSP|ESP)\b/i.exec(line.trim());
  if (m === null) return null;
  return { active: m[1]!.toUpperCase() === 'ON', noSpaces: m[2]!.toUpperCase() === 'NSP' };
}
