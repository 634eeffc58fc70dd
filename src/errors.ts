// The one application error type: every failure a client sees is an AppError turned into shape B by http/error-middleware.
import { classifyCodePoint } from './text-safety.js';

export type ErrorCode =
  | 'invalid_request'
  | 'invalid_printer'
  | 'invalid_api_key'
  | 'invalid_credentials'
  | 'invalid_session'
  | 'csrf_rejected'
  | 'insufficient_permissions'
  | 'quota_exceeded'
  | 'resource_not_found'
  | 'printer_busy'
  | 'printer_offline'
  | 'invalid_state'
  | 'file_invalid'
  | 'file_url_forbidden'
  /** 422: a camera's stream_url or snapshot_url names an address never reached (link-local, cloud metadata, ...), as file_url. */
  | 'camera_url_forbidden'
  /** 502: the camera gave no picture (details: the fault code, e.g. unreachable, unauthorized, not_a_camera, stalled). */
  | 'camera_unavailable'
  | 'file_deleted'
  | 'rate_limit_exceeded'
  | 'storage_full'
  | 'node_unavailable'
  | 'internal_error';

export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: string;
  /** Extra response headers the error must carry (Retry-After, WWW-Authenticate, Allow). */
  readonly headers: Record<string, string>;
  /**
   * Whether the failed-auth guard counts this error against the client address. Unset: every 401 counts. true: a wrong
   * credential that is not a 401 (an invite token). false: a 401 that guessed nothing (no credential was sent at all).
   */
  readonly failedAuthentication: boolean | undefined = undefined;

  constructor(status: number, code: ErrorCode, message: string, details = '', headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

/** Every 401 carries the same challenge header. */
export const unauthorized = (message: string): AppError =>
  new AppError(401, 'invalid_api_key', message, '', { 'WWW-Authenticate': 'Bearer' });

export const badRequest = (message: string, details = ''): AppError => new AppError(400, 'invalid_request', message, details);
/**
 * 404 for `what` (e.g. "API key") with the id the client asked for quoted and cut, e.g. `API key "key_x" not found`.
 * Called with one argument (an older style that builds the id into `what`), the whole text is cut to ECHO_MAX.
 */
export const notFound = (what: string, id?: string): AppError =>
  new AppError(404, 'resource_not_found', id === undefined ? `${clipInput(what)} not found` : `${what} ${quoteInput(id)} not found`);
export const invalidState = (message: string): AppError => new AppError(409, 'invalid_state', message);

/** The most characters of a client's own input that any error message repeats. */
export const ECHO_MAX = 100;

/**
 * The one way client input goes into an error message: in double quotes, cut to ECHO_MAX characters (the length
 * said when cut), and with every control or bidirectional character shown as \uXXXX so a message can neither break a
 * log line nor reorder the text around it.
 */
export function quoteInput(value: unknown): string {
  const { text, cutFrom } = escapeForMessage(String(value), true);
  return cutFrom === null ? `"${text}"` : `"${text}…" (${cutFrom} characters)`;
}

/** Like quoteInput without the quotes, for text that already reads as a phrase (`user usr_x`). */
export function clipInput(value: string): string {
  const { text, cutFrom } = escapeForMessage(value, false);
  return cutFrom === null ? text : `${text}… (${cutFrom} characters)`;
}

/** The last line of defence, applied to every error body: whatever a message holds, no control or bidi character leaves raw. */
export const neutralizeUnsafe = (message: string): string => escapeForMessage(message, false, Infinity).text;

/** At most `max` characters, unsafe ones as \uXXXX (and quotes/backslashes escaped when quoting); cutFrom: the full length when cut. */
function escapeForMessage(value: string, quoting: boolean, max = ECHO_MAX): { text: string; cutFrom: number | null } {
  const chars = Array.from(value);
  let text = '';
  for (const ch of chars.length > max ? chars.slice(0, max) : chars) {
    const cp = ch.codePointAt(0) as number;
    if (quoting && (ch === '"' || ch === '\\')) text += `\\${ch}`;
    else if (classifyCodePoint(cp, false)) text += `\\u${cp.toString(16).padStart(4, '0')}`;
    else text += ch;
  }
  return { text, cutFrom: chars.length > max ? chars.length : null };
}
