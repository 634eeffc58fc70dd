// PgClusterBus on a throw-away PostgreSQL cluster: two buses see each other's signals, a killed listening backend is survived.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { PgClusterBus } from '../../src/cluster/pg-cluster-bus.js';
import { CLUSTER_CHANNELS, type ClusterChannel } from '../../src/cluster/cluster-bus.js';
import { pgUnavailableReason, startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';

const skip = pgUnavailableReason();
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** Resolves with the next payload on `channel`, or rejects after `ms`. */
function next(bus: PgClusterBus, channel: ClusterChannel, ms = 5000, want?: (p: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { off(); reject(new Error(`no signal on ${channel} within ${ms} ms`)); }, ms);
    const off = bus.subscribe(channel, (p) => {
      if (want && !want(p)) return;
      clearTimeout(timer);
      off();
      resolve(p);
    });
  });
}

describe('PgClusterBus', { skip: skip ?? false }, () => {
  let cluster: PgCluster;
  let url: string;
  let pool: pg.Pool;
  const buses: PgClusterBus[] = [];
  const bus = (): PgClusterBus => {
    const b = new PgClusterBus({ url, logger: quiet, backoffMs: 50, notify: async (c, p) => void (await pool.query('SELECT pg_notify($1, $2)', [c, p])) });
    buses.push(b);
    return b;
  };

  before(async () => {
    cluster = await startPgCluster();
    url = await cluster.createDatabase('bus');
    pool = new pg.Pool({ connectionString: url, max: 2 });
  });
  after(async () => {
    for (const b of buses) await b.close();
    await pool?.end();
    await cluster?.stop();
  });

  it('carries every channel of the ClusterChannel list to the other bus', async () => {
    const a = bus();
    const b = bus();
    await Promise.all([a.started(), b.started()]);
    for (const channel of Object.keys(CLUSTER_CHANNELS) as ClusterChannel[]) {
      const got = next(b, channel, 5000, (p) => p === `on ${channel}`);
      await a.publish(channel, `on ${channel}`);
      assert.equal(await got, `on ${channel}`, channel);
    }
  });

  it('carries a signal from one bus to the other and to itself, on its channel only', async () => {
    const a = bus();
    const b = bus();
    await Promise.all([a.started(), b.started()]);
    let wrongChannel = 0;
    b.subscribe('deliveries', () => (wrongChannel += 1));
    const atB = next(b, 'events');
    const atA = next(a, 'events');
    await a.publish('events', '42');
    assert.equal(await atB, '42');
    assert.equal(await atA, '42');
    const jobs = next(a, 'jobs');
    await b.publish('jobs');
    assert.equal(await jobs, '');
    assert.equal(wrongChannel, 0);
  });

  it('refuses a payload NOTIFY would reject', async () => {
    const a = bus();
    await assert.rejects(a.publish('events', 'x'.repeat(8000)), /at most 7999/);
  });

  it('survives its backend being terminated: a nudge on reconnect, then signals flow again', async () => {
    const a = bus();
    const b = bus();
    await Promise.all([a.started(), b.started()]);
    const nudge = next(b, 'jobs', 10_000);
    // Kill every listening backend of this database except the pool's own connection doing the killing.
    const killed = await pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'bus' AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'",
    );
    assert.ok(killed.rowCount! >= 2);
    assert.equal(await nudge, '', 'every listener is nudged after the reconnect');
    assert.ok(b.connections >= 2);
    const atB = next(b, 'events', 10_000, (p) => p === '7');
    await a.publish('events', '7');
    assert.equal(await atB, '7');
  });
});
