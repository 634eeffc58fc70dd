// Pure webhook rules by table: signatures (rotation, tolerance), the retry schedule, the attempt state machine, event patterns (hosts: test/net/host-allowlist.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { anyPatternMatches, mayReadEvent, patternMatches, scopeForEventType } from '../../src/events/event-names.js';
import { telemetryFromSnapshot } from '../../src/events/printer-telemetry.js';
import { TelemetryThrottle } from '../../src/events/telemetry-throttle.js';
import { decideAfterAttempt } from '../../src/webhooks/delivery-outcome.js';
import { MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_S } from '../../src/webhooks/retry-schedule.js';
import { signatureHeader, signPayload, verifySignature } from '../../src/webhooks/signature.js';

describe('signatures', () => {
  const body = '{"id":"evt_1","type":"job.created"}';
  it('signs "<t>.<body>" with HMAC-SHA256 and verifies within the tolerance only', () => {
    const header = signatureHeader(['whsec_new_secret_0123'], 1_700_000_000, body);
    assert.match(header, /^t=1700000000,v1=[0-9a-f]{64}$/);
    assert.equal(header.split('v1=')[1], signPayload('whsec_new_secret_0123', 1_700_000_000, body));
    assert.equal(verifySignature(header, 'whsec_new_secret_0123', body, 1_700_000_100), true);
    assert.equal(verifySignature(header, 'whsec_new_secret_0123', body, 1_700_000_301), false, 'too old: a replay');
    assert.equal(verifySignature(header, 'wrong-secret-0123456', body, 1_700_000_000), false);
    assert.equal(verifySignature(header, 'whsec_new_secret_0123', body + ' ', 1_700_000_000), false, 'body changed');
  });
  it('during a rotation both secrets sign, so either verifies', () => {
    const header = signatureHeader(['new-secret-0123456789', 'old-secret-0123456789'], 100, body);
    assert.equal(header.split(',').length, 3);
    assert.equal(verifySignature(header, 'new-secret-0123456789', body, 100), true);
    assert.equal(verifySignature(header, 'old-secret-0123456789', body, 100), true);
  });
});

describe('retry schedule and attempt outcomes', () => {
  it('spans about 24 hours over 11 attempts, with ±10 % jitter', () => {
    const total = RETRY_DELAYS_S.reduce((a, b) => a + b, 0);
    assert.ok(total > 22 * 3600 && total < 25 * 3600, `total ${total} s`);
    assert.equal(MAX_ATTEMPTS, 11);
    assert.equal(nextAttemptAt(1, 0, 0.5), 30_000);
    assert.equal(nextAttemptAt(1, 0, 0), 27_000);
    assert.ok((nextAttemptAt(1, 0, 0.999999) as number) <= 33_000);
    assert.equal(nextAttemptAt(2, 1000, 0.5), 61_000);
    assert.equal(nextAttemptAt(MAX_ATTEMPTS, 0, 0.5), null);
    assert.equal(nextAttemptAt(1, 0, 0.5, 0.001), 30, 'the benchmark scale shrinks the schedule, same shape');
    assert.equal(nextAttemptAt(MAX_ATTEMPTS, 0, 0.5, 0.001), null);
    for (let i = 1; i < RETRY_DELAYS_S.length; i++) assert.ok((RETRY_DELAYS_S[i] as number) >= (RETRY_DELAYS_S[i - 1] as number));
  });
  const result = (statusCode: number | null) => ({ statusCode, durationMs: 1, error: null, excerpt: null });
  const cases: Array<[string, number | null, number, boolean, unknown]> = [
    ['2xx delivers', 204, 1, true, { status: 'delivered' }],
    ['410 fails and disables', 410, 1, true, { status: 'failed', disableWebhook: true }],
    ['500 retries', 500, 1, true, { status: 'pending', nextAttemptMs: 30_000 }],
    ['a redirect is not followed: retried', 302, 1, true, { status: 'pending', nextAttemptMs: 30_000 }],
    ['unreachable retries', null, 2, true, { status: 'pending', nextAttemptMs: 60_000 }],
    ['the last attempt fails', 500, MAX_ATTEMPTS, true, { status: 'failed', disableWebhook: false }],
    ['a test delivery never retries', 500, 1, false, { status: 'failed', disableWebhook: false }],
  ];
  for (const [name, code, attempts, retries, expected] of cases) {
    it(name, () => assert.deepEqual(decideAfterAttempt(result(code), attempts, 0, 0.5, retries), expected));
  }
});

describe('event names, patterns and scopes', () => {
  it('matches names, group wildcards and *; * never selects webhook.test nor telemetry', () => {
    assert.equal(patternMatches('job.*', 'job.created'), true);
    assert.equal(patternMatches('job.*', 'printer.online'), false);
    assert.equal(patternMatches('*', 'material.low'), true);
    assert.equal(patternMatches('*', 'webhook.test'), false);
    assert.equal(patternMatches('*', 'printer.telemetry'), false);
    assert.equal(patternMatches('printer.*', 'printer.telemetry'), false);
    assert.equal(patternMatches('printer.telemetry', 'printer.telemetry'), true);
    assert.equal(anyPatternMatches(['printer.offline', 'material.*'], 'material.empty'), true);
  });
  it('maps each event to the read scope of its resource', () => {
    assert.equal(scopeForEventType('job.failed'), 'jobs:read');
    assert.equal(scopeForEventType('printer.telemetry'), 'printers:read');
    assert.equal(scopeForEventType('material.low'), 'materials:read');
    assert.equal(scopeForEventType('webhook.test'), 'webhooks:write');
    assert.equal(mayReadEvent(['jobs:*'], 'job.created'), true);
    assert.equal(mayReadEvent(['printers:read'], 'job.created'), false);
    assert.equal(mayReadEvent(['admin:*'], 'webhook.test'), true);
  });
  it('throttles telemetry to once a second per printer', () => {
    const t = new TelemetryThrottle();
    assert.equal(t.admit('prt_a', 0), true);
    assert.equal(t.admit('prt_a', 999), false);
    assert.equal(t.admit('prt_b', 999), true);
    assert.equal(t.admit('prt_a', 1000), true);
  });
});

describe('printer telemetry from a session snapshot', () => {
  it('keeps temperatures with targets, progress and the job', () => {
    const sample = telemetryFromSnapshot({
      printer_id: 'prt_1',
      url: 'sim://a',
      status: 'printing',
      ready: true,
      firmware: null,
      temperatures: { hotend: 210.2, hotend_target: 210, bed: 59.8 },
      job: { id: 'job_1', file_path: '/x', progress: 12.5, bytes_acked: 1, bytes_total: 8, lines_acked: 1, lines_sent: 2, phase: 'streaming', pending_action: null, started_at: 0, gcode_bytes_acked: 1, gcode_bytes_total: 8, lines_total: 2, elapsed_ms: 1000, extruded_mm: [], used_basis: 'wire' },
      error: null,
    });
    assert.deepEqual(sample, {
      status: 'printing',
      temperatures: { hotend: 210.2, hotend_target: 210, bed: 59.8, bed_target: null },
      progress: 12.5,
      job_id: 'job_1',
      external_job: null,
      offline_reason: null,
    });
  });

  it('carries why a printer is offline, so an open page sees a refused key without a reload', () => {
    const sample = telemetryFromSnapshot({
      printer_id: 'prt_1',
      url: 'octoprint://127.0.0.1',
      status: 'offline',
      ready: true,
      firmware: null,
      temperatures: {},
      job: null,
      error: { code: 'auth_failed', message: 'OctoPrint refused the API key (403)' },
      offline_reason: 'auth_failed',
    });
    assert.equal(sample.offline_reason, 'auth_failed');
  });

  it('carries a print started on the printer itself, its start as ISO time', () => {
    const sample = telemetryFromSnapshot({
      printer_id: 'prt_1',
      url: 'moonraker://127.0.0.1',
      status: 'printing',
      ready: true,
      firmware: null,
      temperatures: {},
      job: null,
      error: null,
      external_job: { file_name: 'benchy.gcode', progress: 42, started_at: Date.parse('2026-11-23T10:00:00.000Z') },
    });
    assert.deepEqual([sample.job_id, sample.progress, sample.external_job], [null, null, { file_name: 'benchy.gcode', progress: 42, started_at: '2026-11-23T10:00:00.000Z' }]);
  });
});
