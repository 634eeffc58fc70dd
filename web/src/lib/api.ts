// The dashboard's only way to the server: same-origin fetch on /v1 with the session cookie; failures become ApiError in words.
import { learnServerTime } from './clock.js';

/** An answer the dashboard must explain: the API's error object, or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
  }
}

/** Called on any 401 so the app can send the user back to the sign-in page (set once by app.ts). */
let onUnauthorized: (err: ApiError) => void = () => {};
export function setUnauthorizedHandler(handler: (err: ApiError) => void): void {
  onUnauthorized = handler;
}

export type Query = Record<string, string | number | boolean | null | undefined | readonly string[]>;

/** `/v1/jobs` + { status: 'queued', limit: 50 } -> `/v1/jobs?status=queued&limit=50` (null/undefined/'' dropped, arrays joined by commas). */
export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === null || v === undefined || v === '') continue;
    params.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  const s = params.toString();
  return s ? `${path}${path.includes('?') ? '&' : '?'}${s}` : path;
}

async function toApiError(res: Response): Promise<ApiError> {
  let body: any = null;
  try {
    body = await res.json();
  } catch {
    // Not JSON (a proxy page, an empty body): the status alone has to do.
  }
  const e = body?.error;
  return new ApiError(res.status, e?.code ?? `http_${res.status}`, e?.message ?? `The server answered ${res.status} ${res.statusText}.`, e?.details ?? null);
}

/**
 * A path with a `.` or `..` segment would be resolved by the browser to another resource (an id taken from the address,
 * `#/materials/..%2Fprinters%2Fprt_1`, must not turn a spool's Archive into a printer's DELETE): refused before sending.
 */
function checkPath(path: string): void {
  const segments = path.split(/[?#]/)[0]!.split('/');
  if (segments.some((s) => s === '.' || s === '..' || /^(%2e|\.){1,2}$/i.test(s))) {
    throw new ApiError(0, 'invalid_request', `The page asked for a malformed address (${path.slice(0, 100)}); nothing was sent.`);
  }
}

/** One request; resolves to the parsed JSON (or null for 204), rejects with ApiError. */
export async function request<T = any>(method: string, path: string, body?: unknown, init: RequestInit = {}): Promise<T> {
  checkPath(path);
  const headers: Record<string, string> = { Accept: 'application/json' };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res: Response;
  const sentAt = Date.now();
  try {
    res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin', ...init });
  } catch {
    throw new ApiError(0, 'network_error', 'The printfarm server cannot be reached.');
  }
  learnServerTime(res.headers.get('Date'), sentAt, Date.now());
  if (!res.ok) {
    const err = await toApiError(res);
    if (res.status === 401 && !path.startsWith('/v1/sessions')) onUnauthorized(err);
    throw err;
  }
  if (res.status === 204) return null as T;
  const type = res.headers.get('Content-Type') ?? '';
  return (type.includes('json') ? await res.json() : await res.text()) as T;
}

export const api = {
  get: <T = any>(path: string, query?: Query) => request<T>('GET', withQuery(path, query)),
  post: <T = any>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  patch: <T = any>(path: string, body: unknown) => request<T>('PATCH', path, body),
  put: <T = any>(path: string, body: unknown) => request<T>('PUT', path, body),
  del: <T = any>(path: string) => request<T>('DELETE', path),
};

/** A list page as the API returns it (`?page=1&per_page=20`, per_page at most 100). */
export interface Page<T> {
  data: T[];
  pagination: { page: number; per_page: number; total: number; total_pages: number };
}

/**
 * A multipart POST with upload progress (fetch has none): `onProgress(0..1)`. Resolves to the JSON answer, rejects with
 * ApiError; `signal` aborts it.
 */
export function upload<T = any>(path: string, form: FormData, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<T> {
  try {
    checkPath(path);
  } catch (err) {
    return Promise.reject(err);
  }
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.withCredentials = true;
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, 'network_error', 'The upload was interrupted: the printfarm server cannot be reached.'));
    xhr.onabort = () => reject(new ApiError(0, 'aborted', 'The upload was cancelled.'));
    xhr.onload = () => {
      let body: any = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // handled below by status
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(body as T);
        return;
      }
      const e = body?.error;
      const err = new ApiError(xhr.status, e?.code ?? `http_${xhr.status}`, e?.message ?? `The server answered ${xhr.status}.`, e?.details ?? null);
      if (xhr.status === 401) onUnauthorized(err);
      reject(err);
    };
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(form);
  });
}
