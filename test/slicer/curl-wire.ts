// How libcurl (as PrusaSlicer's and OrcaSlicer's Http.cpp drive it) lays out a request: header order, curl_formadd
// multipart, curl_easy_escape, Expect: 100-continue and the empty Digest probe. Facts: /work/notes/slicer-facts.md §0.
import { randomBytes } from 'node:crypto';
import { bodyLength, type BodyPart, type WireRequest } from './raw-http.js';

/** libcurl generations that differ on the wire: boundary alphabet and how a form name/filename is escaped. */
export type CurlFlavour = 'curl8' | 'curl7.88' | 'curl7.75';

/** libcurl sends `Expect: 100-continue` for bodies above this (EXPECT_100_THRESHOLD). */
export const EXPECT_100_THRESHOLD = 1024 * 1024;

/** What the replay runner asks for on a Digest host: the empty probe, or the retry with its Authorization value. */
export type CurlAuth = { probe: true } | { authorization: string } | undefined;

export interface FormField {
  name: string;
  value?: string;
  /** A file part: its filename and content (curl adds Content-Type: application/octet-stream). */
  file?: { filename: string; content: BodyPart };
}

/** `------------------------` + 22 alphanumerics (libcurl 8) or 16 lowercase hex digits (libcurl 7). */
export function curlBoundary(flavour: CurlFlavour): string {
  const dashes = '-'.repeat(24);
  if (flavour !== 'curl8') return dashes + randomBytes(8).toString('hex');
  const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return dashes + Array.from(randomBytes(22), (b) => alnum[b % alnum.length]).join('');
}

/** curl's escaping of a form name/filename: percent style since 7.81 (`"` CR LF only), backslash style before. */
export function curlFormEscape(s: string, flavour: CurlFlavour): string {
  if (flavour === 'curl7.75') return s.replace(/[\\"]/g, (c) => `\\${c}`);
  return s.replace(/["\r\n]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** curl_easy_escape: every UTF-8 byte except A-Z a-z 0-9 - . _ ~ becomes %XX (upper-case hex). */
export function curlEasyEscape(s: string): string {
  return Array.from(Buffer.from(s, 'utf8'), (b) =>
    /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
  ).join('');
}

/** Header values are sent as bytes; a JS string carrying UTF-8 must go as its UTF-8 bytes (raw-http writes latin1). */
export function utf8AsBinary(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1');
}

/** The multipart body curl_formadd builds: fields in the order added, text parts without a Content-Type. */
export function curlMultipart(fields: FormField[], boundary: string, flavour: CurlFlavour): BodyPart[] {
  const out: BodyPart[] = [];
  fields.forEach((f, i) => {
    let head = `${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Disposition: form-data; name="${curlFormEscape(f.name, flavour)}"`;
    if (f.file) head += `; filename="${curlFormEscape(f.file.filename, flavour)}"\r\nContent-Type: application/octet-stream`;
    out.push(Buffer.from(head + '\r\n\r\n', 'utf8'));
    out.push(f.file ? f.file.content : Buffer.from(f.value ?? '', 'utf8'));
  });
  out.push(Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1'));
  return out;
}

export interface CurlRequestSpec {
  method: 'GET' | 'POST' | 'PUT';
  target: string;
  host: string;
  userAgent: string;
  /** Http::header() calls in order; an empty value is not sent at all (curl drops `Name: ` with nothing after it). */
  custom: Array<[string, string]>;
  form?: { fields: FormField[]; boundary: string; flavour: CurlFlavour };
  /** A raw body: PUT's set_put_body, or POST's set_post_body. */
  putBody?: BodyPart;
  auth?: CurlAuth;
}

/** Host, [Authorization], User-Agent, Accept, custom headers, then Content-Length, multipart Content-Type, Expect. */
export function curlRequest(spec: CurlRequestSpec): WireRequest {
  const headers: Array<[string, string]> = [['Host', spec.host]];
  if (spec.auth && 'authorization' in spec.auth) headers.push(['Authorization', spec.auth.authorization]);
  headers.push(['User-Agent', spec.userAgent], ['Accept', '*/*']);
  headers.push(...spec.custom.filter(([, v]) => v.trim() !== ''));
  if (spec.method === 'GET') return { method: 'GET', target: spec.target, headers, body: [] };
  // A Digest host gets an empty probe first: no body, no multipart Content-Type (curl's "authneg" request).
  if (spec.auth && 'probe' in spec.auth) {
    headers.push(['Content-Length', '0']);
    return { method: spec.method, target: spec.target, headers, body: [] };
  }
  const body = spec.form ? curlMultipart(spec.form.fields, spec.form.boundary, spec.form.flavour) : spec.putBody ? [spec.putBody] : [];
  const length = bodyLength(body);
  headers.push(['Content-Length', String(length)]);
  if (spec.form) headers.push(['Content-Type', `multipart/form-data; boundary=${spec.form.boundary}`]);
  if (length > EXPECT_100_THRESHOLD) headers.push(['Expect', '100-continue']);
  return { method: spec.method, target: spec.target, headers, body };
}
