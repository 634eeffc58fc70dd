// Builds .bgcode files by the specification (libbgcode doc/specifications.md) for tests: blocks with CRC32, deflate,
// hand-made heatshrink streams.
import { crc32, deflateSync } from 'node:zlib';

export const TYPE = { file: 0, gcode: 1, slicer: 2, printer: 3, print: 4, thumbnail: 5 } as const;
export const COMP = { none: 0, deflate: 1, hs11: 2, hs12: 3 } as const;

/** MSB-first bit writer for heatshrink streams built by hand. */
export class Bits {
  private bytes: number[] = [];
  private cur = 0;
  private n = 0;
  put(value: number, width: number): this {
    for (let i = width - 1; i >= 0; i--) {
      this.cur = (this.cur << 1) | ((value >> i) & 1);
      if (++this.n === 8) {
        this.bytes.push(this.cur);
        this.cur = 0;
        this.n = 0;
      }
    }
    return this;
  }
  literal(ch: string): this {
    return this.put(1, 1).put(ch.charCodeAt(0), 8);
  }
  backref(distance: number, length: number, windowBits: number): this {
    return this.put(0, 1).put(distance - 1, windowBits).put(length - 1, 4);
  }
  done(): Buffer {
    return Buffer.from(this.n ? [...this.bytes, this.cur << (8 - this.n)] : this.bytes);
  }
}

/** "abc" as literals, then a back-reference 3 back of 9 bytes: "abcabcabcabc". */
export const hsAbc = (windowBits: number): Buffer => new Bits().literal('a').literal('b').literal('c').backref(3, 9, windowBits).done();

export function block(type: number, comp: number, params: Buffer, plain: Buffer, stored: Buffer, checksum = true): Buffer {
  const head = Buffer.alloc(comp === 0 ? 8 : 12);
  head.writeUInt16LE(type, 0);
  head.writeUInt16LE(comp, 2);
  head.writeUInt32LE(plain.length, 4);
  if (comp !== 0) head.writeUInt32LE(stored.length, 8);
  const body = Buffer.concat([head, params, stored]);
  if (!checksum) return body;
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(crc32(body));
  return Buffer.concat([body, crc]);
}

export const u16 = (...v: number[]): Buffer => {
  const b = Buffer.alloc(v.length * 2);
  v.forEach((x, i) => b.writeUInt16LE(x, i * 2));
  return b;
};

export function meta(type: number, text: string, comp: 'none' | 'deflate' = 'none', checksum = true): Buffer {
  const plain = Buffer.from(text);
  return block(type, COMP[comp], u16(0), plain, comp === 'none' ? plain : deflateSync(plain), checksum);
}

export function header(version = 1, checksum = 1): Buffer {
  const b = Buffer.alloc(10);
  b.write('GCDE', 0, 'latin1');
  b.writeUInt32LE(version, 4);
  b.writeUInt16LE(checksum, 8);
  return b;
}

export const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(24, 7)]);
export const QOI = Buffer.concat([Buffer.from('qoif'), Buffer.alloc(20, 3)]);

/** A complete file: every block type, every compression. Returns the blocks so tests can break one. */
export function parts(checksum = true) {
  const gcodePlain = Buffer.from('abcabcabcabc');
  return {
    header: header(1, checksum ? 1 : 0),
    file: meta(TYPE.file, 'Producer=PrusaSlicer 2.8.1\n', 'none', checksum),
    printer: meta(TYPE.printer, 'printer_model=MK4S\nfilament_type=PETG\nnozzle_diameter=0.6\nlayer_height=0.25\nfilament used [mm]=1.0\n', 'none', checksum),
    thumb1: block(TYPE.thumbnail, COMP.none, u16(0, 16, 16), PNG, PNG, checksum),
    thumb2: block(TYPE.thumbnail, COMP.none, u16(2, 313, 173), QOI, QOI, checksum),
    print: meta(TYPE.print, 'filament used [mm]=2345.67\nfilament used [g]=7.05\ntotal filament used [g]=7.25\nestimated printing time (normal mode)=1d 2h 3m 4s\n', 'deflate', checksum),
    slicer: block(TYPE.slicer, COMP.hs12, u16(0), Buffer.from('abcabcabcabc'), hsAbc(12), checksum),
    gcode1: block(TYPE.gcode, COMP.hs11, u16(0), gcodePlain, hsAbc(11), checksum),
    gcode2: block(TYPE.gcode, COMP.none, u16(0), Buffer.from('G1 X1 E1\n'), Buffer.from('G1 X1 E1\n'), checksum),
  };
}


/** A minimal valid file around plain G-code: printer and print metadata, the G-code deflated in blocks of `blockBytes`. */
export function bgcodeAround(gcode: string, printMeta: string, blockBytes = 4096): Buffer {
  const chunks: Buffer[] = [header(), meta(TYPE.printer, 'printer_model=MK4S\n'), meta(TYPE.print, printMeta, 'deflate'), meta(TYPE.slicer, '')];
  const all = Buffer.from(gcode);
  for (let at = 0; at < all.length; at += blockBytes) {
    const plain = all.subarray(at, at + blockBytes);
    chunks.push(block(TYPE.gcode, COMP.deflate, u16(0), plain, deflateSync(plain)));
  }
  return Buffer.concat(chunks);
}
