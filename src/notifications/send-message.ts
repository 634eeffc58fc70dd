// Sends one person message on one channel: chat services over HTTP (the webhook poster: one deadline, no redirects),
// email over SMTP with nodemailer (TLS or STARTTLS required unless told otherwise). Returns what happened, never throws.
import type http from 'node:http';
import type https from 'node:https';
import nodemailer from 'nodemailer';
import { AttemptAborted, postWebhook } from '../webhooks/webhook-poster.js';
import type { ChannelKind, EmailSettings, SecretsOf, SettingsOf } from './channel-kinds.js';
import { CHAT_FORMATTERS } from './chat-formats.js';
import { emailContent } from './email-format.js';
import type { PersonMessage } from './person-message.js';
import { retryAfterMs, type SendResult } from './send-outcome.js';

export { AttemptAborted };

export interface SendOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  agents?: { http: http.Agent; https: https.Agent };
  nowMs: number;
  /** Extra email recipients (the channel's users' addresses). */
  extraTo?: readonly string[];
}

/** Refusals that retrying cannot mend: wrong token or address, gone webhook. */
const PERMANENT_HTTP = [400, 401, 403, 404, 410];

export async function sendMessage(kind: ChannelKind, settings: unknown, secrets: unknown, m: PersonMessage, o: SendOptions): Promise<SendResult> {
  if (kind === 'email') return sendEmail(settings as EmailSettings, secrets as SecretsOf['email'], m, o);
  const format = CHAT_FORMATTERS[kind] as (m: PersonMessage, s: SettingsOf[typeof kind], x: SecretsOf[typeof kind]) => ReturnType<(typeof CHAT_FORMATTERS)['ntfy']>;
  const req = format(m, settings as never, secrets as never);
  const r = await postWebhook(req.url, req.body, { 'User-Agent': 'printfarm-notifications/1', ...req.headers }, { timeoutMs: o.timeoutMs, signal: o.signal, agents: o.agents, contentType: req.contentType });
  const code = r.statusCode;
  const ok = code !== null && code >= 200 && code < 300;
  // Telegram and Discord also say how long to wait in the JSON body (parameters.retry_after / retry_after, seconds).
  const bodyWait = code === 429 ? retryAfterInBody(r.excerpt) : null;
  return {
    ok,
    status: code === null ? null : `HTTP ${code}`,
    error: ok ? null : code === null ? r.error : `${kind} answered ${code}${r.excerpt ? `: ${serviceSays(r.excerpt)}` : ''}`,
    retryAfterMs: code === 429 ? (retryAfterMs(r.retryAfter, o.nowMs) ?? bodyWait ?? 60_000) : null,
    permanent: code !== null && PERMANENT_HTTP.includes(code),
  };
}

/** What the service said in words: the description / message / error of a JSON answer, else the text, clipped. */
function serviceSays(excerpt: string): string {
  try {
    const b = JSON.parse(excerpt) as { description?: unknown; message?: unknown; error?: unknown; errors?: unknown };
    const said = [b.description, b.message, b.error, Array.isArray(b.errors) ? b.errors.join('; ') : undefined].find((x) => typeof x === 'string' && x !== '');
    if (typeof said === 'string') return said.slice(0, 200);
  } catch {
    // Not JSON: the text itself.
  }
  return excerpt.slice(0, 200);
}

function retryAfterInBody(excerpt: string | null): number | null {
  try {
    const body = JSON.parse(excerpt ?? '') as { retry_after?: unknown; parameters?: { retry_after?: unknown } };
    const s = body.parameters?.retry_after ?? body.retry_after;
    return typeof s === 'number' && s >= 0 ? Math.ceil(s * 1000) : null;
  } catch {
    return null;
  }
}

async function sendEmail(s: EmailSettings, secrets: SecretsOf['email'], m: PersonMessage, o: SendOptions): Promise<SendResult> {
  const to = [...new Set([...s.to, ...(o.extraTo ?? [])])];
  if (to.length === 0) return { ok: false, status: null, error: 'no recipients: add an address or a user with an email', retryAfterMs: null, permanent: true };
  const transport = nodemailer.createTransport({
    host: s.host,
    port: s.port,
    secure: s.security === 'tls',
    requireTLS: s.security === 'starttls',
    ignoreTLS: s.security === 'none',
    // The server's certificate is always checked: against the channel's own CA when it has one.
    ...(s.tls_ca ? { tls: { ca: s.tls_ca } } : {}),
    ...(s.username ? { auth: { user: s.username, pass: secrets.password ?? '' } } : {}),
    connectionTimeout: o.timeoutMs,
    greetingTimeout: o.timeoutMs,
    socketTimeout: o.timeoutMs,
  });
  const onAbort = (): void => transport.close();
  if (o.signal?.aborted) throw new AttemptAborted('attempt aborted by shutdown');
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const content = emailContent(m);
    const info = await transport.sendMail({ from: s.from, to, subject: content.subject, text: content.text, html: content.html });
    return { ok: true, status: `SMTP ${String(info.response ?? '250').slice(0, 3)}`, error: null, retryAfterMs: null, permanent: false };
  } catch (err) {
    if (o.signal?.aborted) throw new AttemptAborted('attempt aborted by shutdown');
    const e = err as Error & { responseCode?: number; code?: string };
    const code = e.responseCode;
    // 5xx is a refusal (bad login 535, unknown recipient 550): retrying the same mail cannot help; 4xx is "try later".
    return { ok: false, status: code ? `SMTP ${code}` : null, error: `SMTP: ${e.message}`, retryAfterMs: null, permanent: code !== undefined && code >= 500 };
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    transport.close();
  }
}
