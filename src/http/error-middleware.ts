// The one place an error becomes a response: shape B for every failure, never a stack trace; unexpected ones are logged.
import type Koa from 'koa';
import { AppError, neutralizeUnsafe, type ErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';
import { isStorageFull, storageFull } from '../storage/storage-full.js';
import { isHostApiPath } from './middleware/rate-limit-headers.js';

interface HttpishError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
  message?: string;
  headers?: Record<string, string>;
}

/** The response body of an error, shape B; also what an idempotent replay of a stored 4xx sends again. */
export function errorResponseBody(err: AppError): { success: false; error: { code: string; message: string; details: string } } {
  return { success: false, error: { code: err.code, message: neutralizeUnsafe(err.message), details: neutralizeUnsafe(err.details) } };
}

/** Errors thrown by koa, koa-body/co-body and @koa/router carry a status; map them onto our codes. */
function fromHttpError(err: HttpishError): AppError | null {
  const status = err.status ?? err.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 600 || status >= 500) return null;
  const headers = err.headers ?? {};
  switch (status) {
    case 400:
      // Request bodies are read by http/json-body, which words its own errors; this is anything else koa refuses.
      return new AppError(400, 'invalid_request', err.message || 'bad request');
    case 405:
      return new AppError(405, 'invalid_request', err.message || 'method not allowed', '', headers);
    case 415:
      return new AppError(415, 'invalid_request', err.message || 'unsupported content type');
    case 404:
      return new AppError(404, 'resource_not_found', err.message || 'not found');
    default: {
      const code: ErrorCode = status === 401 ? 'invalid_api_key' : status === 403 ? 'insufficient_permissions' : 'invalid_request';
      return new AppError(status, code, err.message || 'request failed', '', headers);
    }
  }
}

/** What the middleware tells about writes: one failed for lack of room, or a request that changes something succeeded. */
export interface WriteOutcomes {
  noteFull(): void;
  noteWritten(): void;
}

/**
 * A slicer shows what a host API answers as it is: PrusaSlicer and OrcaSlicer "HTTP 400: <body>", Cura the body only
 * when its type is exactly text/plain (no charset), Cura's Moonraker plugin only the reason phrase. So one sentence,
 * in all three places.
 */
function hostApiError(ctx: Koa.Context, err: AppError): void {
  const text = neutralizeUnsafe(err.details ? `${err.message} (${err.details})` : err.message);
  ctx.set('Content-Type', 'text/plain');
  ctx.body = `${text}\n`;
  // A reason phrase must be one line of visible ASCII; Node refuses anything else.
  const phrase = text.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
  if (phrase) ctx.message = phrase;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function errorMiddleware(logger: Logger, writes?: WriteOutcomes): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (!READS.has(ctx.method) && ctx.status < 400) writes?.noteWritten();
    } catch (raw) {
      // A full disk is the same answer wherever it struck (the database, a file): 507 saying what to free.
      const full = isStorageFull(raw);
      if (full) writes?.noteFull();
      let err = raw instanceof AppError ? raw : full ? storageFull('the change') : fromHttpError(raw as HttpishError);
      if (!err) {
        logger.error('unhandled error', {
          request_id: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          error: (raw as Error)?.stack ?? String(raw),
        });
        err = new AppError(500, 'internal_error', 'internal error', `request id ${String(ctx.state.requestId)}`);
      }
      ctx.status = err.status;
      for (const [name, value] of Object.entries(err.headers)) ctx.set(name, value);
      if (isHostApiPath(ctx.path)) hostApiError(ctx, err);
      else ctx.body = errorResponseBody(err);
    }
  };
}
