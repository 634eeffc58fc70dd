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
