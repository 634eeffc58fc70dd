// The pure cores of notifications: quiet hours in the organization's time zone, fitting text to a limit, the send
// state machine (Retry-After, pausing), and the wording of one event and of a group.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { clip, clipBytes, fitBlocks } from '../../src/notifications/fit-text.js';
import { buildMessage, type MessageContext } from '../../src/notifications/person-message.js';
import { quietUntil } from '../../src/notifications/quiet-hours.js';
import { decideAfterSend, PAUSE_AFTER_FAILURES, retryAfterMs, type SendResult } from '../../src/notifications/send-outcome.js';

const at = (iso: string): number => Date.parse(iso);

describe('quiet hours', () => {
  it('a window over midnight, in the organization time zone', () => {
    // 22:00 to 07:00 in Berlin (UTC+1 in January).
    const [start, end] = [22 * 60, 7 * 60];
    assert.equal(quietUntil(at('2026-01-10T20:59:00Z'), 'Europe/Berlin', start, end), null, '21:59 local');
    assert.equal(quietUntil(at('2026-01-10T21:00:00Z'), 'Europe/Berlin', start, end), at('2026-01-11T06:00:00Z'), '22:00 local until 07:00 local');
    assert.equal(quietUntil(at('2026-01-11T03:30:20Z'), 'Europe/Berlin', start, end), at('2026-01-11T06:00:00Z'), '04:30 local');
    assert.equal(quietUntil(at('2026-01-11T06:00:00Z'), 'Europe/Berlin', start, end), null, '07:00 local is over');
  });
  it('a window within a day, and none', () => {
    assert.equal(quietUntil(at('2026-01-10T12:30:00Z'), 'UTC', 12 * 60, 13 * 60), at('2026-01-10T13:00:00Z'));
    assert.equal(quietUntil(at('2026-01-10T13:30:00Z'), 'UTC', 12 * 60, 13 * 60), null);
    assert.equal(quietUntil(at('2026-01-10T12:30:00Z'), 'UTC', null, null), null);
    assert.equal(quietUntil(at('2026-01-10T12:30:00Z'), 'UTC', 600, 600), null, 'start equal to end: no quiet hours');
  });
});

describe('fitting text', () => {
  it('clips by characters and by UTF-8 bytes without splitting a character', () => {
    assert.equal(clip('abcdef', 4), 'abc…');
    assert.equal(clip('abc', 4), 'abc');
    const cut = clipBytes('ééééé', 7);
    assert.ok(Buffer.byteLength(cut) <= 7);
    assert.equal(cut, 'éé…');
  });
  it('keeps whole blocks and says how many were left out', () => {
    const blocks = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`);
    const out = fitBlocks(blocks, 60);
    assert.ok(out.length <= 60, out);
    assert.match(out, /^line 1\nline 2\n/);
    assert.match(out, /…and \d+ more: see the dashboard\.$/);
    const kept = out.split('\n').length - 1;
    assert.equal(Number(/and (\d+) more/.exec(out)![1]), 50 - kept);
  });
});

describe('the send state machine', () => {
  const fail = (x: Partial<SendResult> = {}): SendResult => ({ ok: false, status: 'HTTP 500', error: 'down', retryAfterMs: null, permanent: false, ...x });
  it('a 429 waits Retry-After even when the back-off is shorter, and does not count toward pausing', () => {
    const d = decideAfterSend(fail({ status: 'HTTP 429', retryAfterMs: 120_000 }), 1, 3, 1000, 0.5, false);
    assert.deepEqual(d.delivery, { status: 'pending', nextAttemptMs: 121_000 });
    assert.equal(d.failuresInARow, 3);
    assert.equal(d.pause, null);
  });
  it('pauses after five failures in a row, keeping the message; a success resets the count', () => {
    const d = decideAfterSend(fail(), 2, PAUSE_AFTER_FAILURES - 1, 0, 0.5, false);
    assert.equal(d.delivery.status, 'pending');
    assert.match(d.pause!, /5 attempts in a row failed, the last: down/);
    assert.equal(decideAfterSend({ ok: true, status: 'HTTP 200', error: null, retryAfterMs: null, permanent: false }, 3, 4, 0, 0.5, false).failuresInARow, 0);
  });
  it('a permanent refusal pauses at once; a test message never pauses nor retries', () => {
    assert.match(decideAfterSend(fail({ permanent: true, error: 'telegram answered 401' }), 1, 0, 0, 0.5, false).pause!, /the service refused: telegram answered 401/);
    const t = decideAfterSend(fail({ permanent: true }), 1, 0, 0, 0.5, true);
    assert.deepEqual([t.delivery.status, t.pause], ['failed', null]);
  });
  it('reads Retry-After as seconds or as an HTTP date', () => {
    assert.equal(retryAfterMs('30', 0), 30_000);
    assert.equal(retryAfterMs(new Date(90_000).toUTCString(), 0), 90_000);
    assert.equal(retryAfterMs('soon', 0), null);
  });
});

describe('the wording', () => {
  const ctx: MessageContext = { timeZone: 'Europe/Berlin', dashboardUrl: 'https://farm.example', printerName: (id) => (id === 'prt_7' ? 'Prusa 7' : undefined) };
  it('one failed job: the printer by name, progress, reason, local time, what to do, the printer page', () => {
    const m = buildMessage([{ type: 'job.failed', createdMs: at('2026-01-10T13:03:00Z'), object: { id: 'job_1', name: 'benchy', printer_id: 'prt_7', progress: 40.4, error: { message: 'thermal runaway' } } }], ctx);
    assert.equal(m.title, 'Job “benchy” failed on Prusa 7 at 40 %');
    assert.equal(m.urgent, true);
    assert.equal(m.link, 'https://farm.example/#/printers/prt_7');
    assert.match(m.items[0]!.detail, /Reason: thermal runaway\. At 10 Jan, 14:03 \(Europe\/Berlin\)\. .*requeue/);
  });
  it('a job that ends with a camera picture links to it on the dashboard; without a dashboard address, no link', () => {
    const object = { id: 'job_1', name: 'benchy', printer_id: 'prt_7', last_snapshot_url: '/v1/jobs/job_1/snapshots/snp_9' };
    for (const type of ['job.completed', 'job.failed', 'job.cancelled']) {
      const m = buildMessage([{ type, createdMs: 0, object }], ctx);
      assert.match(m.items[0]!.detail, /Last picture: https:\/\/farm\.example\/v1\/jobs\/job_1\/snapshots\/snp_9$/, type);
    }
    const none = buildMessage([{ type: 'job.completed', createdMs: 0, object }], { ...ctx, dashboardUrl: null });
    assert.doesNotMatch(none.items[0]!.detail, /picture/);
    const noCamera = buildMessage([{ type: 'job.completed', createdMs: 0, object: { ...object, last_snapshot_url: null } }], ctx);
    assert.doesNotMatch(noCamera.items[0]!.detail, /picture/);
  });
  it('a bed to clear and a lost box say what to do and link to their page', () => {
    const bed = buildMessage([{ type: 'printer.bed_waiting', createdMs: 0, object: { id: 'prt_7', name: 'Prusa 7' } }], ctx);
    assert.equal(bed.title, 'Printer Prusa 7 waits for its bed to be cleared');
    assert.equal(bed.urgent, false);
    assert.match(bed.items[0]!.detail, /press Bed cleared/);
    const box = buildMessage([{ type: 'node.lost', createdMs: 0, object: { id: 'nod_1', name: 'shelf-pi', printers: [{}, {}] } }], ctx);
    assert.equal(box.title, 'Box shelf-pi of the farm was lost');
    assert.equal(box.urgent, true);
    assert.equal(box.link, 'https://farm.example/#/nodes');
    assert.match(box.items[0]!.detail, /its 2 printers are offline with it/);
  });
  it('an empty queue says which job was last and links to the queue', () => {
    const m = buildMessage([{ type: 'queue.empty', createdMs: 0, object: { object: 'queue', queued: 0, printing: 3, last_started: { id: 'job_9', name: 'lid', printer_id: 'prt_7' } } }], ctx);
    assert.equal(m.title, 'The print queue is empty');
    assert.equal(m.urgent, false);
    assert.equal(m.link, 'https://farm.example/#/queue');
    assert.match(m.items[0]!.detail, /“lid”, started on Prusa 7 at .*Add jobs/);
  });
  it('a disk running out of room is urgent and says what to do', () => {
    const m = buildMessage([{ type: 'storage.low', createdMs: 0, object: { object: 'storage', node_id: 'nod_1', state: 'low', free_mb: 150, reserve_mb: 200 } }], ctx);
    assert.equal(m.title, 'The farm’s disk is running out of room');
    assert.equal(m.urgent, true);
    assert.match(m.items[0]!.detail, /150 MB were free with 200 MB kept for the database \(box nod_1\)\. New uploads are refused\. Delete old files/);
  });
  it('a group is counted by kind in the title and links to the farm', () => {
    const ev = (type: string, id: string) => ({ type, createdMs: 0, object: { id, name: id } });
    const m = buildMessage([ev('printer.offline', 'a'), ev('printer.offline', 'b'), ev('job.completed', 'c')], ctx, true);
    assert.equal(m.title, 'Digest: 2 printers offline, 1 job finished');
    assert.equal(m.link, 'https://farm.example/#/');
    assert.equal(m.items.length, 3);
  });
});
