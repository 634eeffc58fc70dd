// Generates realistic sliced-looking G-code files for session tests (comments, blanks, CRLF, retracts) and their expected stripped lines.
import { writeFile } from 'node:fs/promises';
import { stripGcodeLine } from '../../src/protocol/framing.js';

export interface GcodeFixture {
  text: string;
  /** The lines a printer must execute, in order: the file stripped, empties skipped. */
  stripped: string[];
}

/** `moves` extrusion moves on a few layers, with the usual preamble; deterministic. */
export function generateGcode(moves: number, opts: { heat?: boolean } = {}): GcodeFixture {
  const out: string[] = [';FLAVOR:Marlin', '; generated for tests', ''];
  if (opts.heat) out.push('M140 S60 ; bed', 'M104 S200', 'M190 S60', 'M109 S200');
  out.push('G28 ; home all', 'G90', 'M82', 'G92 E0', 'G1 Z0.2 F3000');
  let e = 0;
  for (let i = 0; i < moves; i++) {
    if (i > 0 && i % 200 === 0) {
      out.push(`;LAYER:${i / 200}`, 'G1 E' + (e - 1).toFixed(5) + ' F2400', `G1 Z${(0.2 + (i / 200) * 0.2).toFixed(2)} F3000`);
      out.push('G1 E' + e.toFixed(5) + ' F2400');
    }
    e += 0.03;
    const x = 50 + ((i * 37) % 100) + 0.123;
    const y = 50 + ((i * 53) % 100) + 0.456;
    const comment = i % 17 === 0 ? ' ; perimeter' : '';
    out.push(`G1 X${x.toFixed(3)} Y${y.toFixed(3)} E${e.toFixed(5)}${comment}`);
    if (i % 50 === 0) out.push('');
    if (i % 71 === 0) out.push('   ; indented comment');
  }
  out.push('M400 (wait)', '; end');
  const text = out.map((l, i) => l + (i % 5 === 0 ? '\r\n' : '\n')).join('');
  const stripped = out.map((l) => stripGcodeLine(l)).filter((l) => l !== '');
  return { text, stripped };
}

export async function writeGcode(path: string, moves: number, opts: { heat?: boolean } = {}): Promise<GcodeFixture> {
  const fx = generateGcode(moves, opts);
  await writeFile(path, fx.text);
  return fx;
}
