// Helpers for tests against a real server started with startServer(): JSON calls with a key, and bounded polling.
import type { RunningServer } from '../../src/server.js';

export async function callServer(server: RunningServer, key: string, method: string, p: string, body?: unknown) {
  const res = await fetch(server.url + p, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  // Tests read whatever the endpoint answers.
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
}

/** Polls `check` every 50 ms until it holds; fails after `timeoutMs` naming `what`. */
export async function pollUntil(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
