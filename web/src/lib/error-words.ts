// Turns an API failure into a sentence for people: what happened (the server's own message) and what to do next.
import { ApiError } from './api.js';

const NEXT_STEP: Record<string, string> = {
  network_error: 'Check that the printfarm server is running and this device is on its network, then try again.',
  aborted: 'Start it again when you are ready.',
  invalid_api_key: 'Sign in again, or ask an admin for a new key.',
  invalid_session: 'Your session ended. Sign in again.',
  invalid_credentials: 'Check the email and password (or the key) and try again.',
  insufficient_permissions: 'Ask an admin for a role or key that allows it.',
  csrf_rejected: 'Reload the page and try again.',
  resource_not_found: 'It may have been deleted. Reload the page.',
  printer_busy: 'Wait for the current print to finish or pause it first.',
  printer_offline: 'Connect the printer (check its cable and power), then try again.',
  invalid_state: 'Reload the page to see its current state.',
  file_invalid: 'Export the G-code again from the slicer (plain-text .gcode) and upload that file.',
  rate_limit_exceeded: 'Wait a minute and try again, or raise the limit in Settings.',
  quota_exceeded: 'Remove something you no longer need, or raise the limit.',
  invalid_request: 'Correct that value and try again; nothing was changed.',
  internal_error: 'Try again; if it keeps happening, look at the server log.',
  camera_unavailable: "Check that the camera is on and reachable, and its address in the printer's settings.",
  camera_url_forbidden: 'Use the camera’s address on your network (link-local and cloud metadata addresses are never reached).',
};

/** One or two sentences: the server's message, then the next step (by error code, else by status). */
export function errorWords(err: unknown): string {
  if (!(err instanceof ApiError)) return `Something went wrong in the page: ${err instanceof Error ? err.message : String(err)}. Reload the page.`;
  const next =
    NEXT_STEP[err.code] ??
    (err.status >= 500 ? NEXT_STEP.internal_error : err.status === 404 ? NEXT_STEP.resource_not_found : 'Try again.');
  const what = err.message.trim().replace(/\.?$/, '.');
  const detail = typeof err.details === 'string' && err.details.trim() ? ` ${err.details.trim().replace(/\.?$/, '.')}` : '';
  return `${what}${detail} ${next}`;
}
