// Every limit of file intake in one place, with names: upload and download size, download time, redirects, form fields, thumbnails.

export interface FileLimits {
  /** Largest G-code file taken, by upload or download (bytes as stored, after any transfer decoding). */
  maxFileBytes: number;
  /** A download must have its response headers by then (ms from the request). */
  downloadHeadersTimeoutMs: number;
  /** A download may go this long without receiving a byte (ms). */
  downloadIdleTimeoutMs: number;
  /** The whole download, headers to last byte (ms). */
  downloadTotalTimeoutMs: number;
  /** Redirects followed before a download is refused. */
  maxRedirects: number;
  /** Longest text field of a multipart form (bytes). */
  maxFieldBytes: number;
  /** Most text fields in one multipart form. */
  maxFields: number;
  /** Largest embedded thumbnail kept, as base64 text in the file; larger ones are skipped, not refused. */
  maxThumbnailBase64Bytes: number;
}

export const GIB = 1024 * 1024 * 1024;

export const DEFAULT_FILE_LIMITS: Readonly<FileLimits> = Object.freeze({
  maxFileBytes: GIB,
  downloadHeadersTimeoutMs: 30_000,
  downloadIdleTimeoutMs: 30_000,
  downloadTotalTimeoutMs: 15 * 60_000,
  maxRedirects: 5,
  maxFieldBytes: 16 * 1024,
  maxFields: 50,
  maxThumbnailBase64Bytes: 2 * 1024 * 1024,
});

/** Longest command a file may hold once comments are stripped: what the most limited firmware (Marlin's buffer) takes. */
export const MAX_COMMAND_CHARS = 95;

/** Default limits with some replaced (tests shorten timeouts; the jobs route may pass its own). */
export const fileLimits = (overrides: Partial<FileLimits> = {}): FileLimits => ({ ...DEFAULT_FILE_LIMITS, ...overrides });

/** "1 GiB", "512 KiB", "300 bytes": sizes in messages. */
export function formatBytes(n: number): string {
  const units: [number, string][] = [
    [GIB, 'GiB'],
    [1024 * 1024, 'MiB'],
    [1024, 'KiB'],
  ];
  for (const [size, unit] of units) {
    if (n >= size) {
      const v = n / size;
      return `${Number.isInteger(v) ? v : v.toFixed(1)} ${unit}`;
    }
  }
  return `${n} bytes`;
}
