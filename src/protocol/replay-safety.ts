// Decides whether a line whose fate is unknown (dropped, or run with its ok lost) may be sent again without harm.
//
// Why this exists (RepRapFirmware facts, read in Duet3D/RepRapFirmware):
// - src/GCodes/GCodeBuffer/StringParser.cpp, LineFinished(): a line with a wrong checksum (or a missing one when the
//   channel requires it) is thrown away and nothing at all is sent back: no error, no resend request, no ok. The same
//   happens when the UART marks an overrun/framing error. The received N is only stored as the current line number;
//   it is never compared with the previous one, so there is no sequence check and a repeated N runs again (no dedupe).
// - src/GCodes/GCodes2.cpp: M110 is an empty case (line numbers cannot be set or checked). M998, "request resend", is
//   what older parsers (src/GCodes/GCodeBuffer.cpp of 2.x and early 3.x StringParser.cpp) put in place of a bad line;
//   its handler only reports "Checksum error on line <n>" because the firmware has no way to ask for the line again.
// - Serial input is handled one command at a time and in order, so the `ok T:` of an M105 sent after a line proves
//   that line is finished or was dropped, but not which: a dropped line and a lost ok are indistinguishable.
// So the host may send such a line again only when running it twice has the same effect as running it once.

/** Commands whose second run changes nothing: mode and parameter setters, waits, reports. */
const REPEATABLE = new Set([
  'G4', 'G20', 'G21', 'G90', 'G91', 'G92',
  'M18', 'M82', 'M83', 'M84', 'M104', 'M105', 'M106', 'M107', 'M109', 'M110', 'M114', 'M115', 'M116', 'M117',
  'M140', 'M141', 'M190', 'M191', 'M201', 'M203', 'M204', 'M205', 'M220', 'M221', 'M400', 'M566',
]);

export interface KnownModes {
  /** null: the host never set it, so it cannot rely on it. */
  relativeXyz: boolean | null;
  relativeE: boolean | null;
}

/**
 * True when `cmd` (stripped, upper or lower case) can run twice with the effect of once, given the modes in force.
 * An absolute G0/G1 ends where it would have ended anyway; anything relative, probing, homing, arcs, tool changes,
 * macros and unknown commands are refused.
 */
export function isReplaySafe(cmd: string, word: string, modes: KnownModes): boolean {
  if (REPEATABLE.has(word)) return true;
  if (word !== 'G0' && word !== 'G1') return false;
  const words = cmd.toUpperCase().slice(word.length).match(/[A-Z][^A-Z]*/g) ?? [];
  for (const w of words) {
    const letter = w[0]!;
    if (letter === 'F') continue;
    if (letter === 'X' || letter === 'Y' || letter === 'Z') {
      if (modes.relativeXyz !== false) return false;
    } else if (letter === 'E') {
      if (modes.relativeE !== false) return false;
    } else {
      // H (endstop moves), S, R (restore points), other axes: not provably repeatable.
      return false;
    }
  }
  return true;
}
