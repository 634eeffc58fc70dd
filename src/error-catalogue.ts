// The error codes a client can get, each with the HTTP statuses that carry it and what it means: ErrorCode derives from it, the API reference prints it.

export interface ErrorCodeDoc {
  /** Every status an AppError with this code is thrown with (a test reads the source to keep this true). */
  statuses: readonly number[];
  meaning: string;
}

export const ERROR_CATALOGUE = {
  invalid_request: {
    statuses: [400, 405, 409, 413, 415, 422],
    meaning:
      'Malformed JSON, or a body or query that breaks the rules (400; the message names the field and the rule); a method the path does not ' +
      'allow (405, with Allow); a body too large (413; JSON: 1 MB) or of another content type (415); an email address already in use, ' +
      'or an Idempotency-Key reused with another request or while its first request still runs (409); a reference to something that is not registered, such as an unknown node_id (422).',
  },
  invalid_printer: { statuses: [400], meaning: 'The printer_id a job or a spool names does not exist (list printers with GET /v1/printers).' },
  invalid_api_key: {
    statuses: [401],
    meaning: 'A missing, unknown, revoked, expired or wrong-environment API key (with WWW-Authenticate: Bearer; the message names the environment of a wrong-environment key).',
  },
  invalid_credentials: {
    statuses: [401],
    meaning: 'POST /v1/sessions: a wrong email address or password, a user who has not accepted the invitation, or a bad key (one message for all).',
  },
  invalid_session: {
    statuses: [401],
    meaning: 'The session cookie is unknown or signed out, or its session ended (lifetime, idle timeout, its user or key no longer valid): sign in again.',
  },
  csrf_rejected: {
    statuses: [403],
    meaning: 'A request with the session cookie that changes something without coming from this origin; a sign-in from another site\'s page.',
  },
  insufficient_permissions: { statuses: [403], meaning: 'A required scope is missing; the message names it, e.g. `missing scope: admin:*`.' },
  quota_exceeded: { statuses: [403], meaning: 'The install holds as many as it may (100 webhooks).' },
  resource_not_found: { statuses: [404], meaning: 'An unknown id, or an unknown route.' },
  printer_busy: { statuses: [409], meaning: 'The printer is printing (or paused) and cannot take this command or job now.' },
  printer_offline: { statuses: [409], meaning: 'The printer is not connected (offline, connecting or in error), so it cannot do this now.' },
  invalid_state: { statuses: [409], meaning: 'The action is not valid in the current state (rolling a revoked or already rolled key, cancelling a finished job).' },
  camera_url_forbidden: {
    statuses: [422],
    meaning: "A camera's stream_url or snapshot_url names an address the farm never reaches (link-local, cloud metadata, multicast, unspecified), as file_url_forbidden; `details` holds the reason.",
  },
  camera_unavailable: {
    statuses: [502],
    meaning: 'The camera gave no picture; `details` holds the fault (unreachable, unauthorized, not_a_camera, stalled, garbage, frame_too_large, closed).',
  },
  file_invalid: { statuses: [422], meaning: 'A job\'s file is not usable G-code; `details` holds the reason.' },
  file_url_forbidden: {
    statuses: [422],
    meaning:
      'A job\'s `file_url`, or a redirect from it, leads to an address the server never reaches or to a host outside the organization\'s `file_url_hosts`; `details` holds the reason.',
  },
  file_deleted: {
    statuses: [410],
    meaning: 'The stored file was removed by pruning (file_retention_days / file_store_max_gb): its content and thumbnail are gone; upload the same G-code again.',
  },
  rate_limit_exceeded: { statuses: [429], meaning: 'Too many requests; Retry-After and the message say after how many seconds to retry.' },
  storage_full: {
    statuses: [507],
    meaning:
      'The disk holding the data directory is full (reads keep working), or an upload or file_url download would eat into the reserve kept for the database; the message says what to free.',
  },
  node_unavailable: {
    statuses: [503],
    meaning: 'The printer (or the running print of the job) belongs to another node sharing the database, and that node is lost, stopped, unreachable or did not answer in time; the message names the node.',
  },
  internal_error: { statuses: [500], meaning: 'Anything unexpected; `details` holds the request id to find it in the log.' },
} as const satisfies Record<string, ErrorCodeDoc>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** The codes an answer of this status may carry, each with its meaning, as one Markdown line (the reference's error answers). */
export function errorsWithStatus(status: number): string {
  return Object.entries(ERROR_CATALOGUE as Record<string, ErrorCodeDoc>)
    .filter(([, doc]) => doc.statuses.includes(status))
    .map(([code, doc]) => `\`${code}\`: ${doc.meaning}`)
    .join(' ');
}
