// Two nodes on one SQLite file, each with a real HTTP address: actions on node B's printer sent to node A's API are
// replayed to B and reach B's simulator; B down or lost is 503 node_unavailable; a forwarded request is never forwarded again.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { newId } from '../../src/ids.js';
import type { NodeIdentity } from '../../src/nodes/node-identity.js';
import { DATABASE_FILE } from '../../src/storage/db.js';
import { FORWARDED_BY_HEADER, FORWARDED_TO_HEADER } from '../../src/forwarding/forwarding.middleware.js';
import { bearer } from '../helpers/test-app.js';
import { fastSim, longJobSim, startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, longGcode, untilStatus } from '../jobs/jobs-harness.js';

describe('printer actions forwarded to the owning node', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-forwarding-'));
  const file = path.join(dir, DATABASE_FILE);
  const nodeA: NodeIdentity = { id: newId('nod'), name: 'box-a', address: null };
  const nodeB: NodeIdentity = { id: newId('nod'), name: 'box-b', address: null };
  let a: PrintersApp;
  let b: PrintersApp;
  let printerId: string;

  const setNode = (patch: { state?: 'online' | 'lost'; address?: string | null }) =>
    a.t.deps.db.updateTable('nodes').set(patch).where('id', '=', nodeB.id).execute();

  /** A call to node A's API with node A's key (keys live in the shared database, so B accepts it too). */
  async function callA(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await a.t.request(p, { method, headers: { ...bearer(a.admin, body !== undefined), ...headers }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  }

  before(async () => {
    // A first: it opens the sessions of the printers stored when it starts, so it never links B's printer created below.
    a = await startPrintersApp({ file, node: nodeA, forwarding: { connectTimeoutMs: 1000, replyTimeoutMs: 5000 } });
    b = await startPrintersApp({ file, node: nodeB });
    const printer = await b.create({ name: 'on b', connection_url: longJobSim('fwd-b') });
    printerId = printer.id;
    assert.equal((await b.get(printerId)).node_id, nodeB.id, 'a printer belongs to the node it was created on');
    await b.untilStatus(printerId, 'idle');
    assert.equal(a.t.deps.printers.session(printerId), undefined, 'node A holds no link to B printer');
  });
  after(async () => {
    await a?.close();
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs console commands on the owner and answers with its replies', async () => {
    const res = await callA('POST', `/v1/printers/${printerId}/commands`, { commands: ['M105'] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.headers.get(FORWARDED_TO_HEADER), nodeB.id);
    assert.equal(res.body.printer_id, printerId);
    assert.match(res.body.results[0].reply ?? JSON.stringify(res.body.results[0]), /T:/);
  });

  it('pauses, resumes and cancels a print on B through A: the job follows on B printer', async () => {
    const job = await createJob(b, longGcode(3000), { printer_id: printerId });
    await untilStatus(b, job.id, 'printing');
    const pause = await callA('POST', `/v1/printers/${printerId}/actions`, { action: 'pause' });
    assert.equal(pause.status, 202, JSON.stringify(pause.body));
    assert.equal(pause.headers.get(FORWARDED_TO_HEADER), nodeB.id);
    assert.equal(pause.body.id, printerId);
    await untilStatus(b, job.id, 'paused');
    assert.equal((await b.get(printerId)).status, 'paused');

    const resume = await callA('POST', `/v1/printers/${printerId}/actions`, { action: 'resume' });
    assert.equal(resume.status, 202, JSON.stringify(resume.body));
    await untilStatus(b, job.id, 'printing');

    // The owner's errors come back as they are: B is printing, so "ready" is refused there with 409 printer_busy.
    const ready = await callA('POST', `/v1/printers/${printerId}/actions`, { action: 'ready' });
    assert.equal(ready.status, 409);
    assert.equal(ready.body.error.code, 'printer_busy');

    // Cancelling the job through A's /v1/jobs/:id: the cancel runs on B, where the print is.
    const cancel = await callA('DELETE', `/v1/jobs/${job.id}`);
    assert.ok(cancel.status === 200 || cancel.status === 202, JSON.stringify(cancel.body));
    assert.equal(cancel.headers.get(FORWARDED_TO_HEADER), nodeB.id);
    await untilStatus(b, job.id, 'cancelled');
  });

  it('answers 503 node_unavailable naming the node when the owner is lost or unreachable', async () => {
    await setNode({ state: 'lost' });
    const lost = await callA('POST', `/v1/printers/${printerId}/actions`, { action: 'pause' });
    assert.equal(lost.status, 503);
    assert.equal(lost.body.error.code, 'node_unavailable');
    assert.match(lost.body.error.message, /box-b/);

    // Online in the table but nobody listening at its address (a port just closed).
    const closed = await startPrintersApp({});
    const deadAddress = closed.t.baseUrl;
    await closed.close();
    await setNode({ state: 'online', address: deadAddress });
    const down = await callA('POST', `/v1/printers/${printerId}/commands`, { commands: ['M105'] });
    assert.equal(down.status, 503);
    assert.equal(down.body.error.code, 'node_unavailable');
    assert.match(down.body.error.message, /box-b.*connection refused/);
  });

  it('never forwards a forwarded request again', async () => {
    // B's row points at A itself (a misconfigured address): A forwards once, then answers the replay itself.
    await setNode({ state: 'online', address: a.t.baseUrl });
    const looped = await callA('POST', `/v1/printers/${printerId}/actions`, { action: 'pause' });
    assert.equal(looped.headers.get(FORWARDED_TO_HEADER), nodeB.id);
    assert.equal(looped.status, 409, JSON.stringify(looped.body));
    assert.equal(looped.body.error.code, 'printer_offline');
    // A request that says it was forwarded is answered where it lands.
    const direct = await callA('POST', `/v1/printers/${printerId}/actions`, { action: 'pause' }, { [FORWARDED_BY_HEADER]: nodeB.id });
    assert.equal(direct.headers.get(FORWARDED_TO_HEADER), null);
    assert.equal(direct.body.error.code, 'printer_offline');
    await setNode({ address: b.t.baseUrl });
  });
});
