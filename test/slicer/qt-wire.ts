// How Qt's QNetworkAccessManager (Cura's plugins) lays out a request: the app's raw headers first, then what Qt adds;
// QHttpMultiPart form-data with a quoted `boundary_.oOo._…` boundary. Facts: /work/notes/slicer-facts.md §5-6.
import { randomBytes } from 'node:crypto';
import { bodyLength, type BodyPart, type WireRequest } from './raw-http.js';

export interface QtPart {
  /** The Content-Disposition value as the plugin writes it, e.g. `form-data; name="file"; filename="a.gcode"`. */
  disposition: string;
  contentType?: string;
  body: BodyPart;
}

/** `boundary_.oOo._` + 24 random bytes in base64 (32 characters, may hold `+` and `/`). */
export function qtBoundary(): string {
  return `boundary_.oOo._${randomBytes(24).toString('base64')}`;
}

/** QHttpMultiPart's body: per part `--b` CRLF, its headers in the order set (disposition, then type), CRLF, body, CRLF. */
export function qtMultipart(parts: QtPart[], boundary: string): BodyPart[] {
  const out: BodyPart[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: ${p.disposition}\r\n`;
    if (p.contentType) head += `Content-Type: ${p.contentType}\r\n`;
    // The header text becomes bytes as UTF-8 (QVariant QString -> QByteArray), so a file name goes as raw UTF-8.
    out.push(Buffer.from(head + '\r\n', 'utf8'), p.body, Buffer.from('\r\n'));
  }
  out.push(Buffer.from(`--${boundary}--\r\n`));
  return out;
}

export interface QtRequestSpec {
  method: 'GET' | 'POST';
  target: string;
  host: string;
  /** setRawHeader/setHeader calls in the order the plugin makes them. */
  raw: Array<[string, string]>;
  /** A multipart post: Qt adds Content-Type (quoted boundary) and MIME-Version unless the plugin set them. */
  multipart?: { parts: QtPart[]; boundary: string };
  body?: Buffer;
}

/**
 * The app's headers, then Qt's: [Content-Type, MIME-Version for multipart], Content-Length, Connection, Accept-Encoding,
 * Accept-Language, Host. Qt's own order is approximate (read from memory of qhttpnetworkconnection.cpp): a server must
 * not depend on it, which is the point of replaying it.
 */
export function qtRequest(spec: QtRequestSpec): WireRequest {
  const headers: Array<[string, string]> = [...spec.raw];
  const has = (name: string) => headers.some(([k]) => k.toLowerCase() === name.toLowerCase());
  let body: BodyPart[] = spec.body ? [spec.body] : [];
  if (spec.multipart) {
    if (!has('Content-Type')) headers.push(['Content-Type', `multipart/form-data; boundary="${spec.multipart.boundary}"`]);
    if (!has('MIME-Version')) headers.push(['MIME-Version', '1.0']);
    body = qtMultipart(spec.multipart.parts, spec.multipart.boundary);
  }
  if (spec.method === 'POST') headers.push(['Content-Length', String(bodyLength(body))]);
  if (!has('Connection')) headers.push(['Connection', 'Keep-Alive']);
  headers.push(['Accept-Encoding', 'gzip, deflate'], ['Accept-Language', 'en-US,*'], ['Host', spec.host]);
  return { method: spec.method, target: spec.target, headers, body };
}
