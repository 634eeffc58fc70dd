// The length a request announces for its body (Content-Length), so an upload that cannot fit is refused before it is read.
import type { IncomingHttpHeaders } from 'node:http';

/** The body's announced size in bytes; 0 when none is announced (chunked) or the header is not a plain number. */
export function announcedBytes(headers: IncomingHttpHeaders): number {
  const raw = headers['content-length'];
  if (raw === undefined || !/^\d+$/.test(raw.trim())) return 0;
  return Number(raw.trim());
}
