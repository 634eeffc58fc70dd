// Test helpers for notifications: an app with short timings, channels pointed at the stand-ins, events recorded as the
// farm records them, and the manual clock moved on so grouped messages fall due.
import assert from 'node:assert/strict';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { PUSHOVER_APP, PUSHOVER_USER, TELEGRAM_TOKEN, type Service, type StandIns } from './service-stand-ins.js';

export const GROUP_MS = 2000;
export const DASHBOARD = 'https://farm.example.com';

export async function notifyApp(options: Parameters<typeof startTestApp>[0] = {}): Promise<{ t: TestApp; key: string }> {
  const t = await startTestApp({ notifications: { groupMs: GROUP_MS, timeoutMs: 1500, random: () => 0.5, safetyPollMs: 50 }, ...options });
  const key = await mintTestKey(t);
  const res = await t.request('/v1/notifications/settings', { method: 'PUT', headers: bearer(key, true), body: JSON.stringify({ dashboard_url: DASHBOARD }) });
  assert.equal(res.status, 200, await res.clone().text());
  return { t, key };
}

export function channelBody(service: Service, s: StandIns, events: string[] = ['*'], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base = { name: `${service} channel`, events, ...extra };
  switch (service) {
    case 'ntfy':
      return { ...base, kind: 'ntfy', settings: { server_url: `${s.baseUrl}/ntfy`, topic: 'farm-alerts' } };
    case 'discord':
      return { ...base, kind: 'discord', settings: {}, secrets: { webhook_url: `${s.baseUrl}/api/webhooks/111/discord-token` } };
    case 'slack':
      return { ...base, kind: 'slack', settings: {}, secrets: { webhook_url: `${s.baseUrl}/services/T0/B0/slack-token` } };
    case 'telegram':
      return { ...base, kind: 'telegram', settings: { chat_id: '-1001234', api_url: s.baseUrl }, secrets: { bot_token: TELEGRAM_TOKEN } };
    case 'pushover':
      return { ...base, kind: 'pushover', settings: { api_url: s.baseUrl }, secrets: { app_token: PUSHOVER_APP, user_key: PUSHOVER_USER } };
  }
}

export async function createChannel(t: TestApp, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.request('/v1/notifications/channels', { method: 'POST', headers: bearer(key, true), body: JSON.stringify(body) });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

export async function getJson<T = Record<string, unknown>>(t: TestApp, key: string, path: string): Promise<T> {
  const res = await t.request(path, { headers: bearer(key) });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as T;
}

export const failedJob = (n = 1) => ({
  id: `job_${n}`,
  name: `benchy-${n}.gcode`,
  status: 'failed',
  printer_id: 'prt_seven',
  progress: 40,
  error: { code: 'printer_error', message: 'thermal runaway on the hotend' },
});

/** Moves the manual clock past the grouping window and lets the worker look. */
export function passGroupWindow(t: TestApp, ms = GROUP_MS): void {
  t.clock.advance(ms);
  t.deps.notifications.worker.wake();
}
