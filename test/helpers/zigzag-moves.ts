// The benchmark's G-code (scripts/bench-stream.ts): extrusion moves along a zig-zag, ~28 bytes a line like sliced G-code.

/** A header, then `count` moves of `segmentMm` at `feed` mm/min, as lines without newlines. */
export function zigZagMoves(count: number, segmentMm = 0.4, feed = 3000): string[] {
  const out = ['G90', 'M82', 'G92 E0', `G1 F${feed}`];
  let x = 20;
  let y = 20;
  let e = 0;
  let dir = 1;
  for (let i = 0; i < count; i++) {
    x += dir * segmentMm;
    if (x > 200 || x < 20) {
      dir = -dir;
      y += 0.4;
    }
    e += segmentMm * 0.033;
    out.push(`G1 X${x.toFixed(3)} Y${y.toFixed(3)} E${e.toFixed(4)}`);
  }
  return out;
}
