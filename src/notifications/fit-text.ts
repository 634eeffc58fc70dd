// Pure: fits text into a service's size limit, by characters or UTF-8 bytes, without cutting a character in two.

/** Cuts `text` to at most `max` characters (code points), ending with "…" when cut. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, Math.max(0, max - 1)).join('') + '…';
}

/** Cuts `text` to at most `maxBytes` bytes of UTF-8, ending with "…" when cut (ntfy counts bytes). */
export function clipBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = '';
  let used = Buffer.byteLength('…');
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (used + n > maxBytes) break;
    out += ch;
    used += n;
  }
  return out + '…';
}

/**
 * Joins as many whole blocks as fit in `max` characters (`sep` between them); when some are left out, the last line
 * says how many, so a flood of 50 still reads as one complete message. A first block longer than `max` is clipped.
 */
export function fitBlocks(blocks: readonly string[], max: number, sep = '\n', more = (n: number) => `…and ${n} more: see the dashboard.`): string {
  let out = '';
  for (let i = 0; i < blocks.length; i++) {
    const next = out === '' ? blocks[i]! : out + sep + blocks[i]!;
    const rest = blocks.length - i - 1;
    const tail = rest > 0 ? sep + more(rest) : '';
    if (Array.from(next + tail).length > max) {
      if (out === '') return clip(blocks[i]!, max);
      return out + sep + more(blocks.length - i);
    }
    out = next;
  }
  return out;
}
