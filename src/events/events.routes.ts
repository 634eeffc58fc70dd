// GET /v1/events (extension): the live stream as Server-Sent Events, filtered by type and by what the key may read.
import { requireAuth } from '../http/middleware/auth-context.js';
import { errorDocs } from '../http/route-docs.js';
import { badRequest } from '../errors.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import { resumePoint } from './stream-resume.js';
import { anyPatternMatches, mayReadEvent, STREAM_EVENT_PATTERNS } from './event-names.js';
import { serveSse } from './sse-connection.js';
import type { Db } from '../storage/db.js';
import type { EventsRuntime } from './events-runtime.js';
import { withDocs } from '../http/with-docs.js';
import { eventDocs } from './events.docs.js';

/** What these routes' handlers use from the program's deps. */
export type EventRouteDeps = HttpDeps & { db: Db; events: EventsRuntime };
const defineRoute = routeDefiner<EventRouteDeps>();

interface StreamQuery {
  types?: string;
  last_event_id?: string;
}

/** `types=job.*,printer.telemetry`: every entry must be a known name or wildcard; none means all. */
function parseTypes(text: string | undefined): string[] {
  if (text === undefined) return ['*', 'printer.telemetry', 'webhook.test'];
  const types = text.split(',').map((t) => t.trim());
  const bad = types.find((t) => !STREAM_EVENT_PATTERNS.includes(t));
  if (bad !== undefined) {
    throw badRequest(`query parameter types: unknown event type "${bad}"`, `known: ${STREAM_EVENT_PATTERNS.join(', ')}`);
  }
  return types;
}

export const eventRoutes = withDocs(eventDocs, [
  defineRoute<unknown, StreamQuery>({
    method: 'GET',
    path: '/v1/events',
    summary: 'Live event stream, Server-Sent Events (extension)',
    description:
      'Each message: `id:` the event id, `event:` its type, `data:` the event object as sent to webhooks. Reconnect with ' +
      'Last-Event-ID to replay what was missed from the retained log (7 days). `printer.telemetry` is live only (no id). ' +
      'A key sees only events whose resource its scopes may read. Heartbeat comments every 15 s; a client that falls ' +
      'behind gets `event: end` with reason `slow_client` and the stream closes.',
    tag: 'Events',
    auth: 'key',
    query: {
      type: 'object',
      additionalProperties: false,
      properties: {
        types: { type: 'string', maxLength: 1000, description: `comma-separated names or wildcards: ${STREAM_EVENT_PATTERNS.join(', ')}; default all` },
        last_event_id: { type: 'string', maxLength: 64, description: 'for clients that cannot send the Last-Event-ID header' },
      },
    },
    responses: { 200: { description: 'text/event-stream' }, ...errorDocs(400) },
    async handle(ctx, { query }, deps) {
      const caller = requireAuth(ctx);
      const patterns = parseTypes(query.types);
      const lastId = ctx.get('Last-Event-ID') || query.last_event_id;
      const resume = await resumePoint(deps.db, lastId);
      // HEAD (which Koa routes here) asks whether the stream would open: answer the headers, never start it.
      if (ctx.method === 'HEAD') {
        ctx.status = 200;
        ctx.type = 'text/event-stream';
        ctx.body = '';
        return;
      }
      const headers = Object.fromEntries(Object.entries(ctx.response.headers).map(([k, v]) => [k, String(v)]));
      // The response is written by hand for as long as the client stays; Koa must not answer it.
      ctx.respond = false;
      await serveSse(
        ctx.res,
        deps.db,
        deps.events.stream,
        {
          accepts: (type) => anyPatternMatches(patterns, type) && mayReadEvent(caller.scopes, type),
          // An open dashboard tab (a wall screen) is in use: each heartbeat that finds its session valid moves the idle deadline.
          stillAuthorized: async () => {
            const valid = await deps.auth.stillValid(caller);
            if (valid && caller.sessionId !== null) await deps.auth.recordSessionUse(caller.sessionId, deps.clock.now());
            return valid;
          },
          resumeAfterSeq: resume.afterSeq,
          notes: resume.notes,
          headers,
        },
        deps.events.sse,
      );
    },
  }),
]);
