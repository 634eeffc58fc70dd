// A multipart job upload as bytes, and one sent all but its last bytes and then held open: the node handling it has
// claimed its Idempotency-Key and waits for the rest, like a node in the middle of a slow upload.
import http from 'node:http';
import { randomBytes } from 'node:crypto';

export interface MultipartUpload {
  body: Buffer;
  contentType: string;
}

/** The fields, then the G-code as the part named "file". */
export function multipartUpload(gcode: string, fields: Record<string, string>): MultipartUpload {
  const boundary = `----held${randomBytes(8).toString('hex')}`;
  const parts = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="part.gcode"\r\nContent-Type: text/x-gcode\r\n\r\n${gcode}\r\n`);
  parts.push(`--${boundary}--\r\n`);
  return { body: Buffer.from(parts.join('')), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface HeldUpload {
  /** Resolves when the request has ended, however (answered, aborted, the node gone). */
  ended: Promise<void>;
  abort(): void;
}

/** POST /v1/jobs announcing the whole length but sending all but the last 16 bytes, then waiting. */
export function heldUpload(baseUrl: string, upload: MultipartUpload, headers: Record<string, string>): HeldUpload {
  const req = http.request(`${baseUrl}/v1/jobs`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': upload.contentType, 'Content-Length': String(upload.body.length) },
  });
  const ended = new Promise<void>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve());
      res.on('error', () => resolve());
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
  });
  req.write(upload.body.subarray(0, upload.body.length - 16));
  return { ended, abort: () => req.destroy() };
}
