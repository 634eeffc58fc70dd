// The farm's public events end to end: a live stream sees printer.online with the printer, then the job's life with the
// job as the API shows it, including live-only job.progress; a webhook receives the stored ones, signed.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { longJobSim, startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, untilStatus } from './jobs-harness.js';

interface StreamEvent {
  type: string;
  data: { object: Record<string, unknown> };
}

/** Reads an SSE response into events until `stop` says enough (or the time is up). */
async function readEvents(res: Response, stop: (seen: StreamEvent[]) => boolean, timeoutMs = 30_000): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const timer = setTimeout(() => void reader.cancel(), timeoutMs);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (data) seen.push(JSON.parse(data.slice(6)) as StreamEvent);
      }
      if (stop(seen)) break;
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => undefined);
  }
  return seen;
}

describe('farm events', () => {
  let app: PrintersApp;
  let receiver: http.Server;
  const received: Array<{ type: string; signature: string; body: { data: { object: { id: string; status: string } } } }> = [];
  before(async () => {
    app = await startPrintersApp();
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        received.push({ type: String(req.headers['x-event-type']), signature: String(req.headers['x-signature']), body: JSON.parse(body) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await app.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('streams printer and job events with their resources, and delivers the stored ones to a webhook', async () => {
    const port = (receiver.address() as AddressInfo).port;
    const hook = await app.call('POST', '/v1/webhooks', { url: `http://127.0.0.1:${port}/hook`, events: ['job.*', 'printer.online'] });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));

    const stream = await app.t.request('/v1/events?types=printer.online,job.*,job.progress', { headers: { Authorization: `Bearer ${app.admin}` } });
    assert.equal(stream.status, 200);
    const printer = await app.create({ name: 'ev', connection_url: longJobSim('events-1') });
    let jobId = '';
    const reading = readEvents(stream, (seen) => seen.some((e) => e.type === 'job.completed'));
    await app.untilStatus(printer.id, 'idle');
    const lines = ['G90'];
    for (let i = 0; i < 200; i++) lines.push(`G1 X${10 + (i % 2)} Y10 F3000`);
    jobId = (await createJob(app, lines.join('\n') + '\n', { printer_id: printer.id })).id;
    await untilStatus(app, jobId, 'completed', 30_000);
    const seen = await reading;

    const online = seen.find((e) => e.type === 'printer.online');
    assert.equal(online?.data.object.id, printer.id);
    assert.equal(online?.data.object.name, 'ev');
    const jobTypes = seen.filter((e) => e.data.object.id === jobId).map((e) => e.type);
    assert.deepEqual(jobTypes.filter((t) => t !== 'job.progress'), ['job.created', 'job.started', 'job.completed']);
    const progress = seen.filter((e) => e.type === 'job.progress');
    assert.ok(progress.length >= 1, 'at least one job.progress');
    assert.ok(progress.length <= 11, `job.progress at most every 10 %: ${progress.length}`);
    assert.equal(progress[0]!.data.object.status, 'printing');
    const completed = seen.find((e) => e.type === 'job.completed')!;
    assert.equal(completed.data.object.status, 'completed');
    assert.equal(completed.data.object.progress, 100);

    await app.until('webhook deliveries', () => received.some((r) => r.body.data.object.id === jobId && r.type === 'job.completed'));
    const types = received.filter((r) => r.body.data.object.id === jobId).map((r) => r.type);
    assert.deepEqual(types, ['job.created', 'job.started', 'job.completed']);
    assert.ok(received.every((r) => /^t=\d+,v1=[0-9a-f]{64}$/.test(r.signature)));
    assert.ok(received.some((r) => r.type === 'printer.online'));
  });

  it('streams live-only printer.updated (added, changed, bed waiting and cleared) to a stream that names it, never stored', async () => {
    const stream = await app.t.request('/v1/events?types=printer.updated', { headers: { Authorization: `Bearer ${app.admin}` } });
    assert.equal(stream.status, 200);
    const wildcard = await app.t.request('/v1/events?types=printer.*', { headers: { Authorization: `Bearer ${app.admin}` } });
    const waited = (e: StreamEvent) => e.data.object.ready === false && e.data.object.group === 'bay-9';
    const reading = readEvents(stream, (seen) => seen.some(waited) && seen.at(-1)!.data.object.ready === true);
    const wildcardReading = readEvents(wildcard, () => false, 4_000);
    const printer = await app.create({ name: 'upd', connection_url: longJobSim('events-updated') });
    await app.untilStatus(printer.id, 'idle');
    assert.equal((await app.call('PATCH', `/v1/printers/${printer.id}`, { group: 'bay-9' })).status, 200);
    const job = await createJob(app, 'G90\nG1 X10 Y10 F3000\n', { printer_id: printer.id });
    await untilStatus(app, job.id, 'completed', 30_000);
    await app.until('the bed waits to be cleared', async () => (await app.call('GET', `/v1/printers/${printer.id}`)).body.ready === false);
    assert.equal((await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'ready' })).status, 202);
    const seen = (await reading).filter((e) => e.data.object.id === printer.id);
    const states = seen.map((e) => [e.data.object.group, e.data.object.ready]);
    assert.deepEqual(states[0], [null, true], 'added');
    assert.ok(states.some(([g, r]) => g === 'bay-9' && r === true), 'changed');
    assert.ok(states.some(([g, r]) => g === 'bay-9' && r === false), 'bed waiting after the print');
    assert.deepEqual(states.at(-1), ['bay-9', true], 'bed cleared');
    assert.ok(seen.every((e) => e.type === 'printer.updated'));
    const stored = await app.t.deps.db.selectFrom('events').select('type').where('type', '=', 'printer.updated').execute();
    assert.equal(stored.length, 0, 'live-only: never stored');
    assert.ok((await wildcardReading).every((e) => e.type !== 'printer.updated'), 'printer.* does not flood a stream with it');
  });

  it('streams live-only material.updated: a spool added, loaded, and drawn down by a print', async () => {
    const stream = await app.t.request('/v1/events?types=material.updated', { headers: { Authorization: `Bearer ${app.admin}` } });
    assert.equal(stream.status, 200);
    const printer = await app.create({ name: 'spooled', connection_url: longJobSim('events-material') });
    await app.untilStatus(printer.id, 'idle');
    const spool = await app.call('POST', '/v1/materials', { type: 'PLA', color: 'red', spool_weight: 1000 });
    assert.equal(spool.status, 201);
    const reading = readEvents(stream, (seen) => seen.some((e) => Number(e.data.object.remaining_weight) < 1000));
    assert.equal((await app.call('PATCH', `/v1/materials/${spool.body.id}`, { printer_id: printer.id, tool: 0 })).status, 200);
    const lines = ['G90', 'M83'];
    for (let i = 0; i < 100; i++) lines.push(`G1 X${10 + (i % 2)} Y10 E2 F3000`);
    const job = await createJob(app, lines.join('\n') + '\n', { printer_id: printer.id });
    await untilStatus(app, job.id, 'completed', 30_000);
    const seen = (await reading).filter((e) => e.data.object.id === spool.body.id);
    assert.ok(seen.every((e) => e.type === 'material.updated'));
    assert.equal(seen[0]!.data.object.printer_id, null, 'added');
    assert.equal(seen[1]!.data.object.printer_id, printer.id, 'loaded');
    const drawn = seen.at(-1)!.data.object;
    assert.ok(Number(drawn.remaining_weight) < 1000, `drawn down: ${drawn.remaining_weight}`);
    const stored = await app.t.deps.db.selectFrom('events').select('type').where('type', '=', 'material.updated').execute();
    assert.equal(stored.length, 0, 'live-only: never stored');
  });
});
