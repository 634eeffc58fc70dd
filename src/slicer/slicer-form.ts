// Reads a slicer's multipart text fields and file name as each slicer writes them (facts from their sources).
import { badRequest } from '../errors.js';
import type { MultipartFields } from '../files/multipart-upload.js';

/** A text field once ('' when absent); sent twice is refused rather than guessed. */
export function fieldText(fields: MultipartFields, name: string): string {
  const value = fields[name];
  if (value === undefined) return '';
  if (Array.isArray(value)) throw badRequest(`the form field "${name}" is given ${value.length} times; send it once`);
  return value;
}

/**
 * The file name as the person typed it. The parser reads the header's bytes as Latin-1 so nothing is lost: PrusaSlicer
 * and OrcaSlicer (libcurl) send raw UTF-8, Cura (Qt) sends Latin-1. Bytes that are valid UTF-8 are read so; others
 * stay Latin-1. libcurl 7.81+ writes `"`, CR and LF as %22, %0D, %0A.
 */
export function slicerFileName(latin1: string): string {
  // Already decoded by its own charset (RFC 2231 `filename*=utf-8''…`, as older Python clients send): keep it.
  if (/[^\u0000-\u00ff]/.test(latin1)) return latin1.replace(/%22/gi, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
  const bytes = Buffer.from(latin1, 'latin1');
  const utf8 = bytes.toString('utf8');
  const text = utf8.includes('\ufffd') ? latin1 : utf8;
  return text.replace(/%22/gi, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
}
