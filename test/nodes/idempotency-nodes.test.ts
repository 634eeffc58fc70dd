// An Idempotency-Key in progress on one node, across nodes: another node answers 409 while its holder is alive, takes
// it over once the holder is declared lost (one job created, replayed after), and the holder's late end leaves it be.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { gcode } from '../jobs/jobs-harness.js';
import { startFarm } from './nodes-harness.js';
import { heldUpload, multipartUpload } from './held-upload.js';

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** Neither node beats by itself (heartbeat an hour away): the test says when the other looks, and the holder stays silent. */
const QUIET = { heartbeatMs: 3_600_000 };

describe('an idempotency key held by another node', () => {
  it('is 409 while its node is alive, taken over once it is lost, and replayed after', async () => {
    const farm = startFarm();
    cleanups.push(() => farm.close());
    const holder = await farm.node('holder', QUIET);
    const other = await farm.node('other', { ...QUIET, lostAfterMs: 300 });
    const key = 'nodes-upload-1';
    const upload = multipartUpload(gcode({ moves: 5 }), { name: 'held part' });
    const headers = { Authorization: `Bearer ${holder.admin}`, 'Idempotency-Key': key };

    // The holder claims the key and then waits for the rest of the body, as a node does mid-upload.
    const held = heldUpload(holder.t.baseUrl, upload, headers);
    cleanups.push(async () => held.abort());
    await holder.until('the holder claimed the key', async () => {
      const row = await holder.t.deps.db.selectFrom('idempotency_keys').select('status').where('idem_key', '=', key).executeTakeFirst();
      return row !== undefined && row.status === null;
    });

    const send = (): Promise<Response> => other.t.request('/v1/jobs', { method: 'POST', headers: { ...headers, 'Content-Type': upload.contentType }, body: upload.body });
    const busy = await send();
    assert.equal(busy.status, 409, await busy.clone().text());
    assert.match(((await busy.json()) as { error: { message: string } }).error.message, /still being processed/);

    // The other node sees the holder silent for lostAfterMs: lost.
    await other.t.deps.nodes.tick();
    await new Promise((r) => setTimeout(r, 400));
    await other.t.deps.nodes.tick();
    const nodes = (await other.call('GET', '/v1/nodes')).body.data as Array<{ id: string; state: string }>;
    assert.equal(nodes.find((n) => n.id === holder.nodeId)?.state, 'lost');

    const taken = await send();
    assert.equal(taken.status, 201, await taken.clone().text());
    assert.equal(taken.headers.get('Idempotent-Replayed'), null);
    const jobId = ((await taken.json()) as { data: { id: string } }).data.id;

    // The lost node's request ends late (its client gives up): the key stays the taker's, answered by replay.
    held.abort();
    await held.ended;
    await new Promise((r) => setTimeout(r, 200));
    const again = await send();
    assert.equal(again.status, 201, await again.clone().text());
    assert.equal(again.headers.get('Idempotent-Replayed'), 'true');
    assert.equal(((await again.json()) as { data: { id: string } }).data.id, jobId);
    const jobs = await other.t.deps.db.selectFrom('jobs').select('id').execute();
    assert.deepEqual(jobs.map((j) => j.id), [jobId], 'one job created');
  });
});
