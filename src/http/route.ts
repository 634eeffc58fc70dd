// Declarative route definitions: one object per endpoint carries its auth, schemas and docs, so validation and OpenAPI share a source.
import type Koa from 'koa';
import type { HttpDeps } from './http-deps.js';
import type { ListSpec } from './list-query.js';
import type { JsonSchema } from './validation.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * 'none': public (healthz); 'key': any valid caller (API key or session cookie); 'session': only a caller that came
 * with a session cookie; { scope }: a caller whose scopes cover this scope.
 */
export type RouteAuth = 'none' | 'key' | 'session' | { scope: string };

export interface RouteInput<B, Q> {
  body: B;
  query: Q;
  params: Record<string, string>;
}

export interface RouteResponseDoc {
  description: string;
  schema?: JsonSchema;
}

/**
 * `D` is what the handler needs from the program's deps: each feature names its own (its services, the db), and the
 * composition root checks that the one deps object it builds has all of them.
 */
export interface RouteDef<B = unknown, Q = unknown, D extends HttpDeps = HttpDeps> {
  method: HttpMethod;
  /** @koa/router path, e.g. /v1/api-keys/:id */
  path: string;
  summary: string;
  /** OpenAPI tag: the feature, e.g. "API keys". */
  tag: string;
  description?: string;
  auth: RouteAuth;
  /** JSON Schema of the JSON body; a route with a body schema answers 415 to other content types. */
  body?: JsonSchema;
  /** Also accept multipart/form-data (the route reads files itself). */
  multipart?: boolean;
  /** Documentation of the multipart form fields (OpenAPI only; the route parses the stream itself). */
  multipartBody?: JsonSchema;
  /** JSON Schema of the query object (values are strings, or arrays when repeated). */
  query?: JsonSchema;
  /** A list endpoint: the query is parsed by http/list-query (replaces `query`) and the handler gets a ListQuery. */
  list?: ListSpec;
  responses: Record<number, RouteResponseDoc>;
  /** A creating POST: honours Idempotency-Key. */
  idempotent?: boolean;
  /** Required: a route exists only once it is built, so the OpenAPI document never lists what would answer 404. */
  handle: (ctx: Koa.Context, input: RouteInput<B, Q>, deps: D) => Promise<void> | void;
}

/** A route of any feature, for code that only reads its description (OpenAPI, listings). */
export type AnyRouteDef = RouteDef<any, any, any>;

/** Identity helper that keeps the body and query types of a route definition (for routes that need only HttpDeps). */
export const defineRoute = <B = unknown, Q = unknown>(route: RouteDef<B, Q>): RouteDef<B, Q> => route;

/** A feature's own defineRoute, whose handlers receive the deps the feature declares: `const defineRoute = routeDefiner<MyDeps>()`. */
export const routeDefiner =
  <D extends HttpDeps>() =>
  <B = unknown, Q = unknown>(route: RouteDef<B, Q, D>): RouteDef<B, Q, D> =>
    route;
