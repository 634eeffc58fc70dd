// Two nodes on one SQLite file and one cluster bus: GET /v1/printers(/:id) on node A shows the live state of node B's
// printer as B publishes it, and offline with reason node_unavailable once B is lost.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalClusterBus } from '../../src/cluster/cluster-bus.js';
import { newId } from '../../src/ids.js';
import type { NodeIdentity } from '../../src/nodes/node-identity.js';
import type { PrinterSnapshot } from '../../src/printers/printer-state.js';
import { encodeSnapshot, MAX_PAYLOAD_BYTES } from '../../src/printers/remote-printer-states.js';
import { DATABASE_FILE } from '../../src/storage/db.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';

describe('remote printer state', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-remote-state-'));
  const file = path.join(dir, DATABASE_FILE);
  const cluster = new LocalClusterBus();
  const nodeA: NodeIdentity = { id: newId('nod'), name: 'box-a', address: null };
  const nodeB: NodeIdentity = { id: newId('nod'), name: 'box-b', address: null };
  let a: PrintersApp;
  let b: PrintersApp;
  let printerId: string;

  before(async () => {
    const tuning = { publishEveryMs: 50, republishAfterMs: 200 };
    a = await startPrintersApp({ file, node: nodeA, cluster, remotePrinters: tuning });
    b = await startPrintersApp({ file, node: nodeB, cluster, remotePrinters: tuning });
    const printer = await b.create({ name: 'on b', connection_url: 'sim://remote-b?speed=max' });
    printerId = printer.id;
    await b.untilStatus(printerId, 'idle');
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the owner node status and temperatures on the other node, in the list and by id', async () => {
    assert.equal(a.t.deps.printers.session(printerId), undefined, 'node A holds no link to B printer');
    await b.call('POST', `/v1/printers/${printerId}/commands`, { commands: ['M104 S205'] });
    await a.until('A sees B printer heating', async () => (await a.get(printerId)).temperatures.hotend_target === 205);
    const one = await a.get(printerId);
    assert.equal(one.status, 'idle');
    assert.equal(one.offline_reason, null);
    assert.equal(typeof one.temperatures.hotend, 'number');
    const list = await a.call('GET', '/v1/printers');
    const listed = list.body.data.find((p: { id: string }) => p.id === printerId);
    assert.equal(listed.status, 'idle');
    assert.equal(listed.temperatures.hotend_target, 205);
    const idle = await a.call('GET', '/v1/printers?status=idle');
    assert.deepEqual(idle.body.data.map((p: { id: string }) => p.id), [printerId], 'the status filter sees the remote state');
  });

  it('shows the printer offline with reason node_unavailable once its node is lost', async () => {
    await a.t.deps.db.updateTable('nodes').set({ state: 'lost' }).where('id', '=', nodeB.id).execute();
    await cluster.publish('nodes');
    await a.until('A sees B printer unavailable', async () => (await a.get(printerId)).offline_reason === 'node_unavailable');
    const p = await a.get(printerId);
    assert.equal(p.status, 'offline');
    assert.equal(p.temperatures.hotend, null);
    assert.match(p.error?.message ?? '', /box-b.*lost/);
    const offline = await a.call('GET', '/v1/printers?status=offline');
    assert.deepEqual(offline.body.data.map((x: { id: string }) => x.id), [printerId]);
    // The owner itself still shows its own printer as it is.
    assert.equal((await b.get(printerId)).status, 'idle');
  });

  it('keeps a payload under the notification limit', () => {
    const big: PrinterSnapshot = {
      printer_id: 'prt_x',
      url: 'sim://x',
      status: 'idle',
      firmware: { name: 'Marlin', profile: 'marlin', capabilities: Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`CAPABILITY_${i}`, true])) },
      temperatures: { hotend: 20, bed: 20 },
      ready: true,
      job: null,
      error: null,
    };
    assert.ok(JSON.stringify(big).length > MAX_PAYLOAD_BYTES);
    const text = encodeSnapshot('nod_x', big);
    assert.ok(Buffer.byteLength(text) <= MAX_PAYLOAD_BYTES);
    assert.equal(JSON.parse(text).snap.firmware.name, 'Marlin');
  });
});
