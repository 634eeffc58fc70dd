// Reads a route's JSON request body (after authorization): every way a body can be broken becomes a 400/413/415 in our own words.
import type Koa from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { AppError, badRequest, quoteInput } from '../errors.js';
import { jsonErrorOffset } from './json-error-position.js';
import { describeJsonKind } from './validation.js';

export const JSON_BODY_LIMIT = '1mb';

/** What inflation (co-body's decompressor) understands; anything else is refused before a byte is read. */
const ENCODINGS = ['gzip', 'deflate', 'br', 'identity'] as const;

interface BodyReadError {
  status?: number;
  type?: string;
  code?: string;
  message?: string;
  limit?: number;
  /** co-body: the raw text of a body that did not parse. */
  body?: unknown;
}

/** Normalises Content-Encoding in place (case, spaces) so "GZIP" works; 415 for one we cannot decode. */
function checkEncoding(ctx: Koa.Context): string {
  const raw = ctx.get('Content-Encoding');
  const encoding = raw.trim().toLowerCase() || 'identity';
  if (!(ENCODINGS as readonly string[]).includes(encoding)) {
    throw new AppError(415, 'invalid_request', `unsupported Content-Encoding ${quoteInput(raw)}: send gzip, deflate, br or none`);
  }
  ctx.req.headers['content-encoding'] = encoding;
  return encoding;
}

/** Line and column (from 1) of a character offset, for a message a person can find the mistake with. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/** Our wording for a body that is not valid JSON, never the parser's (which quotes the input back at length). */
export function describeMalformedJson(raw: string): string {
  const offset = jsonErrorOffset(raw);
  if (offset === null) return 'malformed JSON body';
  if (offset >= raw.length) return 'malformed JSON body: it ends too early (an unclosed string, object or array?)';
  return `malformed JSON body: unexpected ${quoteInput(Array.from(raw.slice(offset, offset + 2))[0])} at ${lineAndColumn(raw, offset)}`;
}

function parseFailure(err: BodyReadError): AppError {
  const raw = typeof err.body === 'string' ? err.body : '';
  // co-body's strict mode refuses valid JSON whose top level is not an object or array: say what it was.
  if (/only supports object and array/.test(err.message ?? '')) {
    try {
      return badRequest(`body: must be a JSON object, not ${describeJsonKind(JSON.parse(raw))}`);
    } catch {
      return badRequest(describeMalformedJson(raw));
    }
  }
  if (/forbidden prototype property/.test(err.message ?? '')) {
    return badRequest('body: the field name "__proto__" is not allowed');
  }
  return badRequest(describeMalformedJson(raw));
}

/** Maps what koa-body, co-body, raw-body and zlib throw; null for anything that is not about the body (a real bug). */
function bodyFailure(err: BodyReadError, encoding: string): AppError | null {
  if (err.status === 413 || err.type === 'entity.too.large') {
    return new AppError(
      413,
      'invalid_request',
      typeof err.limit === 'number' ? `request body too large: the limit is ${err.limit} bytes` : 'request body too large',
    );
  }
  if (err.type === 'request.size.invalid') return badRequest('body: its length does not match the Content-Length header');
  if (err.type === 'request.aborted') return badRequest('body: the client stopped sending it before the end');
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
    return new AppError(415, 'invalid_request', 'unsupported charset: send the body as UTF-8');
  }
  // zlib and brotli failures carry a Z_* or ERR_* code and no status: the bytes are not what Content-Encoding says.
  if (err.status === undefined && encoding !== 'identity' && typeof err.code === 'string') {
    return badRequest(`body: cannot be decompressed: it is not valid ${encoding} data (Content-Encoding: ${encoding})`);
  }
  if (err.status === 400) return parseFailure(err);
  return null;
}

/**
 * Returns a reader for one app: the parsed JSON body of a JSON request, or undefined when the request is not JSON
 * (a multipart upload the route streams itself) or has no body. Strict: the top level must be an object or array.
 */
export function jsonBodyReader(): (ctx: Koa.Context) => Promise<unknown> {
  const parse = koaBody({
    jsonLimit: JSON_BODY_LIMIT,
    jsonStrict: true,
    json: true,
    urlencoded: false,
    text: false,
    multipart: false,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH],
  });
  return async (ctx) => {
    const encoding = checkEncoding(ctx);
    try {
      await parse(ctx, async () => {});
    } catch (raw) {
      const err = bodyFailure(raw as BodyReadError, encoding);
      if (err) throw err;
      throw raw;
    }
    return (ctx.request as unknown as { body?: unknown }).body;
  };
}
