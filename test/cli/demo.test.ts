// `serve --demo N`: an empty farm gets N virtual printers with different materials and a print each; a farm with
// printers gets nothing; the flag is checked.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { parseDemoFlag } from '../../src/cli/serve.command.js';
import { demoGcode, seedDemoFarm, startDemoStandIns } from '../../src/demo/demo-farm.js';
import { silentLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';

it('--demo is a number of printers from 1 to 20', () => {
  assert.deepEqual(parseDemoFlag(['--port', '0']), { printers: 0, network: false });
  assert.deepEqual(parseDemoFlag(['--demo', '3']), { printers: 3, network: false });
  assert.deepEqual(parseDemoFlag(['--demo', '2', '--demo-network']), { printers: 2, network: true });
  assert.throws(() => parseDemoFlag(['--demo-network']), /--demo-network goes with --demo N/);
  for (const bad of ['0', '21', 'three', '-1', '2.5']) assert.throws(() => parseDemoFlag([`--demo=${bad}`]), /invalid --demo/);
});

it('seeds an empty farm once: printers with different materials, one matching print each, which start', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pf-demo-'));
  const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, env: 'live' }, { logger: silentLogger, shutdownGraceMs: 200 });
  try {
    assert.deepEqual(await seedDemoFarm(server.deps, 3), { printers: 3, jobs: 3 });
    const printers = await server.deps.printers.listAll();
    assert.equal(printers.length, 3);
    assert.equal(new Set(printers.map((p) => `${p.material_type}/${p.material_color}`)).size, 3);
    assert.ok(printers.every((p) => p.connection_url.startsWith('sim://')));
    const jobs = (await server.deps.jobs.list({ page: 1, perPage: 20, sort: [{ field: 'created_at', column: 'created_at', desc: false }], fields: null, where: [] })).data;
    assert.equal(jobs.length, 3);
    assert.ok(jobs.every((j) => j.estimated_duration === 130 && (j.material as { estimated_usage: number }).estimated_usage > 0));
    // The scheduler puts each print on the printer that has its material.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const running = await Promise.all(printers.map((p) => server.deps.printers.get(p.id)));
      if (running.every((p) => p.current_job !== null)) break;
      assert.ok(Date.now() < deadline, `printers not all printing: ${JSON.stringify(running.map((p) => p.status))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(await seedDemoFarm(server.deps, 3), { printers: 0, jobs: 0 });
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

it('the demo part is valid G-code for every material', () => {
  for (const m of ['PLA', 'PETG', 'ASA', 'TPU']) assert.match(demoGcode(m), new RegExp(`filament_type = ${m}\\n`));
});

it('--demo-network adds a Moonraker, an OctoPrint and a PrusaLink printer on stand-ins, and each takes its print', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pf-demo-net-'));
  const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, env: 'live' }, { logger: silentLogger, shutdownGraceMs: 200 });
  const standIns = await startDemoStandIns(0);
  try {
    assert.deepEqual(await seedDemoFarm(server.deps, 1, standIns), { printers: 4, jobs: 4 });
    const printers = await server.deps.printers.listAll();
    assert.deepEqual(printers.map((p) => p.kind).sort(), ['moonraker', 'octoprint', 'prusalink', 'serial']);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const running = await Promise.all(printers.map((p) => server.deps.printers.get(p.id)));
      if (running.every((p) => p.current_job !== null || p.ready === false)) break;
      assert.ok(Date.now() < deadline, `printers not all printing: ${JSON.stringify(running.map((p) => [p.kind, p.status, p.offline_reason]))}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await server.close();
    for (const s of standIns) await s.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
