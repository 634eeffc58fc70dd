// Builds the OpenAPI 3.1 document from the same RouteDefs (and JSON Schemas) that mount and validate the routes.
import { VERSION } from '../version.js';
import { listQueryParameters } from './list-query.js';
import { SESSION_COOKIE } from './middleware/session-cookie.js';
import { withTextDefaults } from './text-field.js';
import type { AnyRouteDef } from './route.js';
import type { JsonSchema } from './validation.js';
import { ERROR_CODES, errorsWithStatus } from '../error-catalogue.js';
import { API_INTRO } from './api-intro.js';
import { TAG_TEXTS } from './api-tags.js';

type Obj = Record<string, unknown>;

/** The shared error answers; what each says comes from the error catalogue, so a new code shows up by itself. */
const ERROR_RESPONSES: Record<string, { status: number; note?: string }> = {
  BadRequest: { status: 400 },
  Unauthorized: { status: 401 },
  Forbidden: { status: 403 },
  NotFound: { status: 404 },
  Conflict: { status: 409 },
  PayloadTooLarge: { status: 413, note: 'The JSON body is over 1 MB.' },
  UnsupportedMediaType: { status: 415, note: 'The body is not application/json.' },
  TooManyRequests: { status: 429 },
  InsufficientStorage: { status: 507 },
  InternalError: { status: 500, note: 'The details carry the request id.' },
};

const errorSchema: JsonSchema = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: {
        code: {
          type: 'string',
          enum: ERROR_CODES,
        },
        message: { type: 'string' },
        details: { type: 'string', description: 'More context; empty when there is nothing to add.' },
      },
    },
  },
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  Health: 'Liveness of the appliance and the state of its disk, open without a key (for load balancers and monitors).',
  Events: 'The live event stream (Server-Sent Events): every stored event the caller may read, plus live-only telemetry.',
  Metrics: 'Prometheus metrics of the farm, for scraping (see the metrics guide, docs/metrics.md).',
  Printers: 'Printers connected over USB serial, TCP bridges or simulated; status and control actions.',
  Jobs: 'The print queue: create, monitor, pause, cancel.',
  Materials: 'Filament spools and their consumption.',
  Analytics: 'Fleet, printer, job and material metrics.',
  Webhooks: 'Event subscriptions with signed deliveries.',
  'Home Assistant': 'The farm published to an MQTT broker with Home Assistant discovery (docs/home-assistant.md).',
  'Slicer uploads':
    'The OctoPrint, PrusaLink and Moonraker upload APIs slicers speak, answered by the farm: an upload goes into the queue. ' +
    'Errors here are one sentence of text/plain (what a slicer shows), not the JSON error shape.',
};

/** /v1/printers/:id/actions → /v1/printers/{id}/actions; a wildcard /api/files/*storage → /api/files/{storage} */
export const toOpenApiPath = (path: string): string => path.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

const pathParams = (path: string): string[] => [...path.matchAll(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1] as string);

/** A wildcard parameter (`*name`) spans one or more segments, each percent-encoded. */
const isWildcard = (path: string, name: string): boolean => path.includes(`*${name}`);

/** getV1PrintersIdActions-style ids, unique because method + path is. */
export function operationId(route: AnyRouteDef): string {
  const words = route.path
    .split(/[/_.-]+/)
    .filter(Boolean)
    .map((w) => (w.startsWith(':') || w.startsWith('*') ? `by-${w.slice(1)}` : w))
    .flatMap((w) => w.split('-'));
  return route.method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

const errorRef = (name: string): Obj => ({ $ref: `#/components/responses/${name}` });

function parameters(route: AnyRouteDef): Obj[] {
  const out: Obj[] = pathParams(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    description: isWildcard(route.path, name)
      ? `One or more path segments (${name}), each percent-encoded; a %2F stays inside its segment.`
      : `The ${name} of the ${route.tag.toLowerCase().replace(/s$/, '')}.`,
    schema: { type: 'string' },
  }));
  if (route.list) {
    for (const p of listQueryParameters(route.list)) out.push({ name: p.name, in: 'query', required: false, description: p.description, schema: p.schema });
  } else if (route.query) {
    const props = (withTextDefaults(route.query).properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((route.query.required ?? []) as string[]);
    for (const [name, schema] of Object.entries(props)) {
      const { description, ...rest } = schema;
      out.push({ name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  if (route.idempotent) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Up to 255 characters chosen by the client. Repeating the request with the same key within 24 hours returns the first response again ' +
        '(header Idempotent-Replayed: true) and creates nothing twice.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  return out;
}

function requestBody(route: AnyRouteDef): Obj | undefined {
  if (!route.body) return undefined;
  // As enforced: the text defaults (single-line, capped) are part of the contract, so the document shows them.
  const content: Obj = { 'application/json': { schema: withTextDefaults(route.body) } };
  if (route.multipart) content['multipart/form-data'] = { schema: route.multipartBody ?? { type: 'object' } };
  return { required: Array.isArray(route.body.required) && route.body.required.length > 0, content };
}

function responses(route: AnyRouteDef): Obj {
  const out: Obj = {};
  for (const [status, doc] of Object.entries(route.responses)) {
    out[status] = {
      description: doc.description,
      headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
      ...(doc.schema && status !== '204' ? { content: { 'application/json': { schema: doc.schema } } } : {}),
    };
  }
  const add = (status: number, name: string): void => {
    if (!(status in out)) out[status] = errorRef(name);
  };
  if (route.body || route.query || route.list || route.idempotent) add(400, 'BadRequest');
  if (route.auth !== 'none') {
    add(401, 'Unauthorized');
    add(429, 'TooManyRequests');
  }
  if (typeof route.auth === 'object') add(403, 'Forbidden');
  if (pathParams(route.path).length > 0) add(404, 'NotFound');
  if (route.idempotent) add(409, 'Conflict');
  if (route.body) {
    add(413, 'PayloadTooLarge');
    add(415, 'UnsupportedMediaType');
  }
  // Anything that changes state may meet a full disk.
  if (route.method !== 'GET') add(507, 'InsufficientStorage');
  add(500, 'InternalError');
  return out;
}

/** Which credentials an operation takes: none, only the session cookie, or a key (header) or the session cookie. */
function securityOf(route: AnyRouteDef): Obj[] {
  if (route.auth === 'none') return [];
  if (route.auth === 'session') return [{ sessionCookie: [] }];
  // The slicers' host APIs take the key as their clients send it, and Digest (PrusaLink's user/password mode).
  if (typeof route.auth === 'object' && route.auth.scope === 'slicer:upload') return [{ apiKeyHeader: [] }, { bearerAuth: [] }, { digestAuth: [] }];
  return [{ bearerAuth: [] }, { basicAuth: [] }, { apiKeyHeader: [] }, { sessionCookie: [] }];
}

function operation(route: AnyRouteDef): Obj {
  const scope = typeof route.auth === 'object' ? route.auth.scope : null;
  const notes = [
    route.description,
    scope
      ? `Requires scope \`${scope}\` (or \`${scope.split(':')[0]}:*\`, or \`admin:*\`).`
      : route.auth === 'key'
        ? 'Any valid API key (or session cookie).'
        : route.auth === 'session'
          ? `Only with a session cookie (\`${SESSION_COOKIE}\`, set by \`POST /v1/sessions\`).`
          : 'No authentication.',
  ].filter(Boolean);
  const body = requestBody(route);
  return {
    operationId: operationId(route),
    summary: route.summary,
    description: notes.join('\n\n'),
    tags: [route.tag],
    security: securityOf(route),
    parameters: parameters(route),
    ...(body ? { requestBody: body } : {}),
    responses: responses(route),
    ...(scope ? { 'x-required-scope': scope } : {}),
  };
}

/**
 * `sections`: Markdown the composition root adds to the document's introduction (the error, event and scope catalogues,
 * built from the features that define them: this module imports no feature).
 */
export function buildOpenApiDocument(routes: readonly AnyRouteDef[], sections: readonly string[] = []): Obj {
  const paths: Record<string, Obj> = {};
  const tags = new Set<string>();
  const operations = new Set<string>();
  for (const route of routes) {
    // Two features claiming one operation is a wiring mistake (the router would serve only the first): say so, never pick one.
    const operationKey = `${route.method} ${route.path.replace(/:\w+/g, ':')}`;
    if (operations.has(operationKey)) throw new Error(`two routes define ${route.method} ${route.path}`);
    operations.add(operationKey);
    const p = toOpenApiPath(route.path);
    paths[p] ??= {};
    paths[p][route.method.toLowerCase()] = operation(route);
    tags.add(route.tag);
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Print farm API',
      version: VERSION,
      description: [
        'REST API of the print farm appliance. JSON in and out; every error is `{ success: false, error: { code, message, details } }` ' +
          'with an X-Request-Id header.',
        API_INTRO.join('\n'),
        ...sections,
      ].join('\n\n'),
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: [...tags].sort().map((name) => {
      const text = [TAG_DESCRIPTIONS[name], TAG_TEXTS[name]?.join('\n')].filter(Boolean).join('\n\n');
      return { name, ...(text ? { description: text } : {}) };
    }),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer svc_<env>_...' },
        basicAuth: { type: 'http', scheme: 'basic', description: 'Legacy: the API key as user name, empty password.' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'The API key, as OctoPrint and Moonraker clients send it.' },
        digestAuth: {
          type: 'http',
          scheme: 'digest',
          description: 'Slicer host APIs only: user = the key prefix, password = the key (realm printfarm, MD5, qop=auth).',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description:
            'Browser sign-in: set (HttpOnly, SameSite=Strict) by POST /v1/sessions. Used only when there is no Authorization header; ' +
            'a POST, PUT, PATCH or DELETE with it must send Sec-Fetch-Site: same-origin or an Origin matching the Host (else 403 csrf_rejected).',
        },
      },
      schemas: { Error: errorSchema },
      headers: {
        'X-Request-Id': { description: 'Identifies the request in logs and in 500 error details.', schema: { type: 'string' } },
      },
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([name, r]) => [
          name,
          {
            description: [r.note, errorsWithStatus(r.status)].filter(Boolean).join(' '),
            headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
    },
  };
}
