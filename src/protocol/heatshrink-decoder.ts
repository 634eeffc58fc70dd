// Heatshrink (LZSS) decompression as binary G-code uses it: window 2^11 or 2^12 bytes, 4-bit lookahead. Pure.
//
// The stream is read MSB first: a 1 bit is followed by one literal byte; a 0 bit by a back-reference of
// `windowBits` bits (distance - 1) and `lookaheadBits` bits (length - 1). Trailing bits of the last byte are padding.

export function heatshrinkDecode(input: Uint8Array, windowBits: number, lookaheadBits: number, expectedSize: number): Buffer {
  const out = Buffer.alloc(expectedSize);
  let o = 0;
  let bytePos = 0;
  let bitMask = 0; // 0: load the next byte
  let current = 0;
  /** Reads `n` bits, or returns -1 when the input ends first. */
  const bits = (n: number): number => {
    let v = 0;
    for (let i = 0; i < n; i++) {
      if (bitMask === 0) {
        if (bytePos >= input.length) return -1;
        current = input[bytePos++]!;
        bitMask = 0x80;
      }
      v = (v << 1) | ((current & bitMask) !== 0 ? 1 : 0);
      bitMask >>= 1;
    }
    return v;
  };
  while (o < expectedSize) {
    const tag = bits(1);
    if (tag < 0) break;
    if (tag === 1) {
      const b = bits(8);
      if (b < 0) break;
      out[o++] = b;
      continue;
    }
    const index = bits(windowBits);
    if (index < 0) break;
    const count = bits(lookaheadBits);
    if (count < 0) break;
    const distance = index + 1;
    if (distance > o) throw new Error(`heatshrink: a back-reference ${distance} bytes back at output byte ${o}`);
    for (let i = 0; i <= count && o < expectedSize; i++, o++) out[o] = out[o - distance]!;
  }
  if (o !== expectedSize) throw new Error(`heatshrink: the data ends after ${o} of ${expectedSize} bytes`);
  return out;
}
