// The command word of a G-code line (`G28`, `M109`), normalised so profile lists match `g28`, `G028` and `G28 X`.

/** `G1 X10` → `G1`, `g04 P5` → `G4`, `T0` → `T0`, `BED_MESH_CALIBRATE` for word commands, '' for no letter. */
export function commandWord(line: string): string {
  const c = line.charCodeAt(0);
  const upper = c >= 97 && c <= 122 ? c - 32 : c;
  if (upper < 65 || upper > 90) return '';
  let i = 1;
  while (i < line.length && line.charCodeAt(i) === 48 && i + 1 < line.length && isDigit(line.charCodeAt(i + 1))) i++;
  const start = i;
  while (i < line.length && (isDigit(line.charCodeAt(i)) || line.charCodeAt(i) === 46)) i++;
  // Klipper's extended commands (BED_MESH_CALIBRATE, PAUSE) are whole words.
  if (i === start) {
    const sp = line.indexOf(' ');
    return (sp < 0 ? line : line.slice(0, sp)).toUpperCase();
  }
  return String.fromCharCode(upper) + line.slice(start, i);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
