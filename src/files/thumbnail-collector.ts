// Pure collector of the thumbnails slicers embed as base64 comment blocks (`; thumbnail begin WxH LEN` … `; thumbnail end`): keeps the largest PNG or JPEG.

export type ThumbnailFormat = 'png' | 'jpg';

export interface Thumbnail {
  format: ThumbnailFormat;
  contentType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  data: Buffer;
}

const BEGIN = /^thumbnail(?:_(PNG|JPG|QOI))?\s+begin\s+(\d+)\s*x\s*(\d+)\s+(\d+)/i;
const END = /^thumbnail(?:_(?:PNG|JPG|QOI))?\s+end\b/i;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface OpenBlock {
  width: number;
  height: number;
  declared: number;
  parts: string[];
  chars: number;
  /** Over the cap or not a kind we can serve: read to its end, then dropped. */
  skip: boolean;
}

/** The image type from its first bytes (the block's own label is not trusted). */
function sniff(data: Buffer): ThumbnailFormat | null {
  if (data.length >= 8 && data.subarray(0, 8).equals(PNG_MAGIC)) return 'png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpg';
  return null;
}

/**
 * Fed every comment (text after ';'); returns true when the comment belonged to a thumbnail block, so the caller
 * skips its other parsing. Memory: one block of at most `maxBase64Bytes` characters plus the best image so far.
 */
export class ThumbnailCollector {
  private open: OpenBlock | null = null;
  private best: Thumbnail | null = null;

  constructor(private readonly maxBase64Bytes: number) {}

  comment(raw: string): boolean {
    const text = raw.trim();
    if (this.open) {
      if (END.test(text)) {
        this.close();
        return true;
      }
      const block = this.open;
      if (!block.skip) {
        if (block.chars + text.length > this.maxBase64Bytes || !/^[A-Za-z0-9+/=]*$/.test(text)) block.skip = true;
        else {
          block.parts.push(text);
          block.chars += text.length;
        }
      }
      return true;
    }
    if (text.length < 15 || (text.charCodeAt(0) | 0x20) !== 116 /* t */) return false;
    const m = BEGIN.exec(text);
    if (!m) return false;
    const declared = Number(m[4]);
    this.open = {
      width: Number(m[2]),
      height: Number(m[3]),
      declared,
      parts: [],
      chars: 0,
      skip: m[1]?.toUpperCase() === 'QOI' || declared > this.maxBase64Bytes,
    };
    return true;
  }

  /** A block still open at the end of the file is incomplete and dropped. */
  result(): Thumbnail | null {
    this.open = null;
    return this.best;
  }

  private close(): void {
    const block = this.open!;
    this.open = null;
    if (block.skip || block.chars !== block.declared) return;
    const data = Buffer.from(block.parts.join(''), 'base64');
    const format = sniff(data);
    if (!format) return;
    let { width, height } = block;
    // A PNG states its own size in the IHDR chunk right after the signature.
    if (format === 'png' && data.length >= 24) {
      width = data.readUInt32BE(16);
      height = data.readUInt32BE(20);
    }
    const area = width * height;
    const best = this.best;
    if (best) {
      const bestArea = best.width * best.height;
      if (area < bestArea || (area === bestArea && (best.format === 'png' || format !== 'png'))) return;
    }
    this.best = { format, contentType: format === 'png' ? 'image/png' : 'image/jpeg', width, height, data };
  }
}
