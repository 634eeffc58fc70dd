// A node registers itself, beats, lists itself and its printers in GET /v1/nodes, says 'stopped' on a clean stop,
// takes printers no node owns; node_id on printers (default: this node; unknown: 422; not changeable by PATCH).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startFarm } from './nodes-harness.js';

const farm = startFarm();
after(() => farm.close());

describe('node registry and GET /v1/nodes', () => {
  it('registers this node, beats, lists it with its printers, and marks it stopped on a clean stop', async () => {
    const a = await farm.node('bay-1', { heartbeatMs: 3_600_000 });
    const listed = await a.call('GET', '/v1/nodes');
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.equal(listed.body.data.length, 1);
    const me = listed.body.data[0];
    assert.equal(me.id, a.nodeId);
    assert.equal(me.name, 'bay-1');
    assert.equal(me.address, a.t.baseUrl);
    assert.equal(me.state, 'online');
    assert.equal(me.self, true);
    assert.equal(me.lost_since, null);
    assert.match(me.version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(me.printers, []);

    const before = await a.t.deps.db.selectFrom('nodes').select(['beats', 'last_seen_at']).where('id', '=', a.nodeId).executeTakeFirstOrThrow();
    a.t.clock.advance(5_000);
    await a.t.deps.nodes.tick();
    const later = await a.t.deps.db.selectFrom('nodes').select(['beats', 'last_seen_at']).where('id', '=', a.nodeId).executeTakeFirstOrThrow();
    assert.equal(later.beats, before.beats + 1);
    assert.ok(later.last_seen_at > before.last_seen_at, 'last_seen_at follows the beat');

    const p = await a.create({ name: 'left', connection_url: 'sim://reg-left?speed=max' });
    assert.equal(p.node_id, a.nodeId, 'a printer belongs to the node it was created on');
    await a.untilStatus(p.id, 'idle');
    const withPrinter = (await a.call('GET', '/v1/nodes')).body.data[0];
    assert.deepEqual(withPrinter.printers, [{ id: p.id, name: 'left', status: 'idle', job: null }]);

    const unknown = await a.call('POST', '/v1/printers', { name: 'x', connection_url: 'sim://reg-x?speed=max', node_id: 'nod_00000000000000000000' });
    assert.equal(unknown.status, 422, JSON.stringify(unknown.body));
    assert.match(unknown.body.error.message, /^node_id: no node nod_0+ is registered/);
    assert.equal((await a.call('GET', '/v1/printers')).body.data.length, 1, 'nothing was created');
    const patch = await a.call('PATCH', `/v1/printers/${p.id}`, { node_id: a.nodeId });
    assert.equal(patch.status, 400, 'node_id is set at creation only');

    const b = await farm.node('bay-2', { heartbeatMs: 3_600_000 });
    const both = (await b.call('GET', '/v1/nodes')).body.data as Array<{ id: string; self: boolean; printers: Array<{ status: string | null }> }>;
    // Both test clocks start at the same instant: the order of equal started_at is by id.
    const byId = (x: string, y: string): number => (x < y ? -1 : 1);
    assert.deepEqual(both.map((n) => [n.id, n.self]), [[a.nodeId, false], [b.nodeId, true]].sort((x, y) => byId(x[0] as string, y[0] as string)));
    // Another node's printer shows the state its owner publishes, as GET /v1/printers does.
    await b.until("B's node list shows A's printer idle", async () => {
      const nodes = (await b.call('GET', '/v1/nodes')).body.data as Array<{ id: string; printers: Array<{ status: string }> }>;
      return nodes.find((n) => n.id === a.nodeId)?.printers[0]?.status === 'idle';
    });
    await a.close();
    const afterStop = (await b.call('GET', '/v1/nodes')).body.data.find((n: { id: string }) => n.id === a.nodeId);
    assert.equal(afterStop.state, 'stopped');
    assert.equal(afterStop.printers[0].status, 'offline');
  });

  it('printers of a farm upgraded from one box (no node) go to the first node that starts, and reconnect there', async () => {
    const c = await farm.node('bay-3', { heartbeatMs: 3_600_000 });
    const p = await c.create({ name: 'old', connection_url: 'sim://reg-old?speed=max' });
    await c.untilStatus(p.id, 'idle');
    await c.close();
    // As an upgraded farm looks: the printer without a node (written through a node that then stops).
    const d = await farm.node('upgrader', { heartbeatMs: 3_600_000 });
    await d.t.deps.db.updateTable('printers').set({ node_id: null }).where('id', '=', p.id).execute();
    await d.close();
    const e = await farm.node('bay-4', { heartbeatMs: 3_600_000 });
    assert.equal((await e.get(p.id)).node_id, e.nodeId);
    await e.untilStatus(p.id, 'idle');
  });
});
