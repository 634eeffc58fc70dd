// The last stage before the wire, one per link: framed lines go out as text (plain) or MeatPack-packed.
import { dropSpaces, isEmergencyLine, meatpackCommand, MeatPackCommand, packedLength, packedSizeBound, packLineInto } from './meatpack.js';

const DISABLE = meatpackCommand(MeatPackCommand.disablePacking);
const ENABLE = meatpackCommand(MeatPackCommand.enablePacking);

export type LineEncoding = 'plain' | 'meatpack';

/**
 * Turns what the protocol writes (whole framed lines, each ending in '\n': several lines, a lone '\n', or a raw
 * emergency line) into the bytes for the transport. Plain is the text as it is. Packing starts only once the firmware said
 * it packs (see SessionMeatPack) and stops for good at the first doubt: the next write opens with the disable command,
 * so everything after it reaches the firmware as text, in order.
 */
export class LineEncoder {
  private mode: LineEncoding = 'plain';
  private noSpaces = false;
  private disableOwed = false;
  /** `[MP]` reports the firmware owes for the disable/enable pairs written around emergency lines. */
  private ownReports = 0;
  /** Reused between writes: packing allocates only when a write outgrows it. */
  private scratch = Buffer.allocUnsafe(1024);

  get encoding(): LineEncoding {
    return this.mode;
  }

  /** The firmware confirmed packing (and no-spaces when `noSpaces`): lines from now on are packed. */
  startPacking(noSpaces: boolean): void {
    this.mode = 'meatpack';
    this.noSpaces = noSpaces;
    this.disableOwed = false;
  }

  /** Plain, nothing owed: the board on the other end was just reset (MeatPack starts off there). */
  reset(): void {
    this.mode = 'plain';
    this.disableOwed = false;
    this.ownReports = 0;
  }

  /** Plain text from the next write on, which starts with the disable command (the firmware may still be packing). */
  stopPacking(): void {
    if (this.mode === 'plain') return;
    this.mode = 'plain';
    this.disableOwed = true;
  }

  /**
   * A `[MP]` report arrived: true when it answers one of our own disable/enable pairs around an emergency line (its
   * "OFF" is expected then, not a sign that the firmware lost its state).
   */
  takeOwnReport(): boolean {
    if (this.ownReports === 0) return false;
    this.ownReports--;
    return true;
  }

  /** Bytes one framed line (ending in '\n') takes once encoded: what it occupies in the firmware's RX buffer. */
  wireLength(framed: string): number {
    if (this.mode === 'plain') return framed.length;
    if (isEmergencyLine(framed)) return framed.length + 7;
    const line = this.noSpaces ? dropSpaces(framed) : framed;
    return packedLength(line, this.noSpaces);
  }

  encode(data: string): Buffer {
    if (this.mode === 'plain') {
      // G-code is ASCII: one byte a character.
      if (!this.disableOwed) return Buffer.from(data, 'latin1');
      this.disableOwed = false;
      return Buffer.concat([DISABLE, Buffer.from(data, 'latin1')]);
    }
    // Worst case: every line an emergency line (6 command bytes and a newline around it) or all literals.
    const bound = packedSizeBound(data.length) + 8 * (countNewlines(data) + 1);
    if (this.scratch.length < bound) this.scratch = Buffer.allocUnsafe(Math.max(bound, this.scratch.length * 2));
    const out = this.scratch;
    let o = 0;
    let start = 0;
    while (start < data.length) {
      let end = data.indexOf('\n', start);
      end = end < 0 ? data.length : end + 1;
      if (isEmergencyLine(data, start, end) || data.charCodeAt(end - 1) !== 10) {
        // Marlin's emergency parser reads the raw bytes as they arrive, before MeatPack unpacks them: a packed M112
        // would never be seen there, and its bytes read as text would be garbage. So packing is turned off around it:
        // the command bytes are taken out of the stream before the unpacker (and mean nothing to the emergency
        // parser), the '\n' ends whatever the emergency parser was matching in the packed bytes before (and is an
        // empty line, ignored, for the line reader: the packed line before ended cleanly), then the line goes as
        // text, read by both, and packing resumes. A tail without its newline (never written by the protocol) takes
        // the same path, because a packed pair cannot end on one character.
        o += DISABLE.copy(out, o);
        out[o++] = 10;
        o += out.write(data.slice(start, end), o, 'latin1');
        o += ENABLE.copy(out, o);
        this.ownReports += 2;
      } else if (this.noSpaces) {
        const line = dropSpaces(data, start, end);
        o = packLineInto(line, 0, line.length, true, out, o);
      } else {
        o = packLineInto(data, start, end, false, out, o);
      }
      start = end;
    }
    // A copy: the transport may keep the buffer queued while the next write reuses the scratch space.
    return Buffer.from(out.subarray(0, o));
  }
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}
