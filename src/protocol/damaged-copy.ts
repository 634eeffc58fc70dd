// Whether a firmware's echo of a command can be one of our lines with a few bytes damaged on the wire.

/**
 * True when `echo` can be made from `line` by changing or removing at most `maxDamage` characters. A flipped bit
 * changes a character; one flipped into a control byte is removed, as the reply parser drops those from what the
 * firmware echoes. Nothing is ever inserted: damage does not add bytes.
 */
export function isDamagedCopy(echo: string, line: string, maxDamage: number): boolean {
  const removed = line.length - echo.length;
  if (removed < 0 || removed > maxDamage) return false;
  // cost[i]: the fewest changes turning line[0, i + j) into echo[0, j) with i removals so far (j runs along echo).
  let cost = new Array<number>(removed + 1).fill(Infinity);
  cost[0] = 0;
  for (let i = 1; i <= removed; i++) cost[i] = i;
  for (let j = 1; j <= echo.length; j++) {
    const next = new Array<number>(removed + 1).fill(Infinity);
    for (let i = 0; i <= removed; i++) {
      const changed = cost[i]! + (line[i + j - 1] === echo[j - 1] ? 0 : 1);
      const dropped = i > 0 ? next[i - 1]! + 1 : Infinity;
      next[i] = Math.min(changed, dropped);
    }
    cost = next;
  }
  return cost[removed]! <= maxDamage;
}

/**
 * Whether `echo`, a command the firmware ran and refused as unknown, can be our line `payload` (without `N<n>` and
 * checksum) with at most `maxDamage` bytes damaged. Three ways it comes back: as sent, damage aside; with the space
 * after `N<n>` in front, when that space was damaged (the firmware trims only a space); or without spaces, as
 * MeatPack's no-spaces mode sends it. An echo of digits alone is the tail of a checksum, never a line.
 */
export function isDamagedEcho(echo: string, payload: string, maxDamage: number): boolean {
  if (!/[^\d\s]/.test(echo)) return false;
  return (
    isDamagedCopy(echo, payload, maxDamage) ||
    isDamagedCopy(echo, ' ' + payload, maxDamage) ||
    isDamagedCopy(echo.replaceAll(' ', ''), payload.replaceAll(' ', ''), maxDamage)
  );
}
