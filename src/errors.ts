// The one application error type: every failure a client sees is an AppError turned into shape B by http/error-middleware.
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_printer'
  | 'invalid_api_key'
  | 'insufficient_permissions'
  | 'quota_exceeded'
  | 'resource_not_found'
  | 'printer_busy'
  | 'printer_offline'
  | 'invalid_state'
  | 'file_invalid'
  | 'rate_limit_exceeded'
  | 'internal_error';

export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: string;
  /** Extra response headers the error must carry (Retry-After, WWW-Authenticate, Allow). */
  readonly headers: Record<string, string>;

  constructor(status: number, code: ErrorCode, message: string, details = '', headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const badRequest = (message: string, details = ''): AppError => new AppError(400, 'invalid_request', message, details);
export const notFound = (what: string): AppError => new AppError(404, 'resource_not_found', `${what} not found`);
export const invalidState = (message: string): AppError => new AppError(409, 'invalid_state', message);

/** The most characters of a client's own input that any error message repeats. */
export const ECHO_MAX = 100;

// C0/C1 controls, DEL, bidirectional marks/overrides/isolates, line and paragraph separators, lone surrogates.
const UNSAFE_ECHO = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The one way client input goes into an error message: in double quotes, cut to ECHO_MAX characters (the length
 * said when cut), and with every control or bidirectional character shown as \uXXXX so a message can neither break a
 * log line nor reorder the text around it.
 */
export function quoteInput(value: unknown): string {
  const text = String(value);
  const chars = Array.from(text);
  const kept = chars.length > ECHO_MAX ? chars.slice(0, ECHO_MAX).join('') : text;
  const escaped = kept
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(UNSAFE_ECHO, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return chars.length > ECHO_MAX ? `"${escaped}…" (${chars.length} characters)` : `"${escaped}"`;
}
