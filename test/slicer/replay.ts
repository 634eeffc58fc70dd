// Plays a slicer transcript against a port: each step's exact request, libcurl's Digest dance where the host uses it, and
// the slicer's own checks of each answer; stops where the slicer would stop.
import { digestAuthorization, parseDigestChallenge } from './curl-digest.js';
import type { CurlAuth } from './curl-wire.js';
import { header, sendWire, type SendOptions, type WireRequest, type WireResponse } from './raw-http.js';

export interface Ctx {
  /** The Host header value, `127.0.0.1:<port>`. */
  host: string;
  /** Earlier answers by step id (the slicer feeds some forward: Location, capabilities, storage list, stored path). */
  answers: Record<string, WireResponse>;
}

export interface Step {
  id: string;
  /** What the slicer does here, for messages. */
  what: string;
  /** The exact request, or undefined when the slicer skips this step given the earlier answers. */
  request(ctx: Ctx, auth?: CurlAuth): WireRequest | undefined;
  /** The slicer's checks of the answer: [] when it accepts it, else what it would show or do instead. */
  expect(res: WireResponse, ctx: Ctx): string[];
  /** PrusaLink with user/password: libcurl's CURLAUTH_DIGEST (probe without credentials, then the real request). */
  digest?: { user: string; password: string };
  /** The slicer ignores this step's failure (PrusaSlicer's storage query); its problems are reported, the replay goes on. */
  optional?: boolean;
}

export interface Transcript {
  name: string;
  steps: Step[];
}

export interface Exchange {
  step: Step;
  request: WireRequest;
  response: WireResponse;
  problems: string[];
}

export interface ReplayResult {
  exchanges: Exchange[];
  /** Every problem, prefixed with its step; empty when the slicer would report success. */
  problems: string[];
  ctx: Ctx;
}

export async function replay(port: number, t: Transcript, send: SendOptions = {}): Promise<ReplayResult> {
  const ctx: Ctx = { host: `127.0.0.1:${port}`, answers: {} };
  const exchanges: Exchange[] = [];
  const problems: string[] = [];
  for (const step of t.steps) {
    let auth: CurlAuth;
    if (step.digest) {
      const probe = step.request(ctx, { probe: true });
      if (!probe) continue;
      const first = await sendWire(port, probe, send);
      const challenge = first.status === 401 ? parseDigestChallenge(header(first, 'WWW-Authenticate')) : undefined;
      if (!challenge) {
        const p = [`${step.what}: libcurl (Digest only, no Basic fallback) needs 401 + WWW-Authenticate: Digest on the empty probe, got ${first.status}`];
        exchanges.push({ step, request: probe, response: first, problems: p });
        problems.push(...p);
        break;
      }
      auth = { authorization: digestAuthorization(challenge, step.digest, probe.method, probe.target) };
    }
    const request = step.request(ctx, auth);
    if (!request) continue;
    const response = await sendWire(port, request, send);
    ctx.answers[step.id] = response;
    const found = step.expect(response, ctx).map((p) => `${step.what}: ${p}`);
    exchanges.push({ step, request, response, problems: found });
    problems.push(...found);
    if (found.length > 0 && !step.optional) break;
  }
  return { exchanges, problems, ctx };
}
