// A mixed farm end to end: two serial printers on pseudo-terminals and one printer of each network kind (on their
// stand-ins) take one queue of 20 G-code jobs with materials, and a Bambu printer (its stand-in on Mosquitto and vsftpd,
// where they can run) takes the sliced 3MF jobs of the same queue; every job completes, each started once, the grams
// charged are what the files extruded (the 3MF's per-slot use, on the spool of the AMS tray it printed from), and every
// job's webhook is delivered once.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { filamentGrams } from '../../src/protocol/extrusion-tracker.js';
import { startNetworkStandIn, type NetworkStandIn } from '../../src/simulator/network-standins.js';
import { createPtyPair, hasSocat, type PtyPair } from '../helpers/socat-pty.js';
import { createJob, getJob, setOrg, uploadJob } from '../jobs/jobs-harness.js';
import { p1sPlate, sliced3mf } from '../helpers/threemf-builder.js';
import { bambuStandInUnavailable, startBambuStandIn, type BambuStandIn } from '../../src/simulator/bambu/bambu-standin.js';
import { createSpool } from '../materials/materials-harness.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { attachPrinter, type PtyPrinter } from './e2e-harness.js';

const JOBS = 20;
const SLICED_JOBS = 3;
/** Metres of black PLA (slot 1) each sliced plate uses. */
const PLATE_M = 0.5;
const bambuSkip = bambuStandInUnavailable();
const MOVES = 60;
const E_PER_MOVE = 0.05;
const KEY = 'mixed-farm-key';

function jobFile(n: number): string {
  const lines = [`; job ${n}`, `; filament_type = PLA`, 'G90', 'M83', 'G1 Z0.2 F600'];
  for (let i = 1; i <= MOVES; i++) lines.push(`G1 X${10 + (i % 2)} Y10 E${E_PER_MOVE} F1200`);
  return lines.join('\n') + '\n';
}

describe('a mixed farm: serial and network printers share one queue', { skip: !hasSocat() && 'socat is not installed' }, () => {
  let app: PrintersApp;
  const pairs: PtyPair[] = [];
  const ptyPrinters: PtyPrinter[] = [];
  const standIns: NetworkStandIn[] = [];
  let bambu: BambuStandIn | null = null;
  let receiver: Server;
  const delivered: string[] = [];

  before(async () => {
    for (let i = 0; i < 2; i++) {
      const pair = await createPtyPair();
      pairs.push(pair);
      ptyPrinters.push(await attachPrinter(pair.devicePath, 'baud=250000&speed=20'));
    }
    for (const kind of ['moonraker', 'octoprint', 'prusalink'] as const) {
      standIns.push(await startNetworkStandIn(kind, { port: 0, apiKey: KEY, simulator: { speed: 20 } }));
    }
    // Without Mosquitto/vsftpd (or root) the farm runs without its Bambu printer: said, not silently dropped.
    if (bambuSkip) console.log(`mixed farm without a Bambu printer: ${bambuSkip}`);
    else bambu = await startBambuStandIn({ simulator: { speed: 20 }, reportMs: 200 });
    receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (c: string) => (body += c));
      req.on('end', () => {
        const event = JSON.parse(body) as { type: string; data: { object: { id: string } } };
        if (event.type === 'job.completed') delivered.push(event.data.object.id);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    app = await startPrintersApp();
  });
  after(async () => {
    await app?.close();
    for (const s of standIns) await s.close();
    await bambu?.close();
    for (const p of ptyPrinters) await p.close();
    for (const p of pairs) await p.close();
    await new Promise((r) => receiver?.close(r));
  });

  it('prints 20 jobs across all kinds: each started once, all completed, grams right, webhooks delivered', { timeout: 240_000 }, async () => {
    await setOrg(app, { auto_start: true });
    const hook = await app.call('POST', '/v1/webhooks', {
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      events: ['job.completed'],
      secret: 'mixed-farm-secret-1234',
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));

    const urls = [
      ...pairs.map((p) => ({ url: `serial://${p.hostPath}?baud=250000`, key: null })),
      ...standIns.map((s) => ({ url: s.connectionUrl, key: KEY })),
    ];
    const printers = [];
    let spool: { diameter: number; density: number } | null = null;
    for (const [i, u] of urls.entries()) {
      const p = await app.create({ name: `printer ${i}`, connection_url: u.url, ...(u.key ? { api_key: u.key } : {}) });
      printers.push(p);
      await app.untilStatus(p.id, 'idle', 30_000);
      spool = await createSpool(app, { type: 'PLA', spool_weight: 1000, printer_id: p.id, tool: 0 });
    }
    assert.deepEqual(
      (await Promise.all(printers.map((p) => app.get(p.id)))).map((p) => p.kind),
      ['serial', 'serial', 'moonraker', 'octoprint', 'prusalink'],
    );
    // The Bambu printer: a P1S, its black PLA spool recorded on tray A2 (tool 1), where the AMS holds black PLA.
    let bambuPrinter: { id: string; kind: string } | null = null;
    let bambuSpool: { id: string; diameter: number; density: number } | null = null;
    if (bambu) {
      bambuPrinter = await app.create({ name: 'bambu', connection_url: bambu.url, api_key: bambu.accessCode, model: 'P1S' });
      await app.untilStatus(bambuPrinter.id, 'idle', 30_000);
      bambuSpool = await createSpool(app, { type: 'PLA', color: '#000000', spool_weight: 1000, printer_id: bambuPrinter.id, tool: 1 });
      printers.push(bambuPrinter);
    }

    const startsPerJob = new Map<string, number>();
    app.t.deps.bus.on('job.started', (p) => startsPerJob.set(p.job_id, (startsPerJob.get(p.job_id) ?? 0) + 1));
    const ids: string[] = [];
    for (let n = 0; n < JOBS; n++) ids.push((await createJob(app, jobFile(n), { material: 'PLA' })).id);
    const slicedIds: string[] = [];
    if (bambu) {
      for (let n = 0; n < SLICED_JOBS; n++) {
        const filaments = [{ slot: 1, type: 'PLA', color: '#000000', used_g: 1.5, used_m: PLATE_M }];
        const file = sliced3mf([p1sPlate({ filaments, gcode: `; plate ${n}\n` + jobFile(n) })]);
        const res = await uploadJob(app, file, {}, `plate-${n}.gcode.3mf`);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        slicedIds.push(res.body.data.id);
      }
      ids.push(...slicedIds);
    }

    await app.until('every job completed', async () => (await Promise.all(ids.map((id) => getJob(app, id)))).every((j) => j.status === 'completed'), 200_000);

    const jobs = await Promise.all(ids.map((id) => getJob(app, id)));
    // Each job started exactly once, and every kind of printer took some.
    for (const id of ids) assert.equal(startsPerJob.get(id), 1, `${id} started ${startsPerJob.get(id) ?? 0} times`);
    const used = new Set(jobs.map((j) => j.printer_id));
    console.log('jobs per printer:', printers.map((p) => `${p.kind} ${jobs.filter((j) => j.printer_id === p.id).length}`).join(', '));
    for (const p of printers) assert.ok(used.has(p.id), `${p.kind} printer ${p.id} printed something`);

    // Grams: what each file extruded, on the PLA spool (1.75 mm, density 1.24 g/cm³ unless the spool says otherwise).
    const expected = filamentGrams(MOVES * E_PER_MOVE, spool!.diameter, spool!.density);
    for (const j of jobs.filter((j) => !slicedIds.includes(j.id))) {
      const grams = j.material.used?.['0'] ?? 0;
      assert.ok(Math.abs(grams - expected) <= expected * 0.01, `${j.id} on ${j.printer_id}: ${grams} g, expected ${expected.toFixed(3)} g`);
    }

    // The sliced jobs: all on the Bambu printer, each charged its plate's metres on tray A2's spool.
    if (bambuPrinter && bambuSpool) {
      const plateGrams = filamentGrams(PLATE_M * 1000, bambuSpool.diameter, bambuSpool.density);
      for (const j of jobs.filter((j) => slicedIds.includes(j.id))) {
        assert.equal(j.printer_id, bambuPrinter.id);
        assert.equal(j.material.used_basis, 'slice_per_tray');
        const grams = j.material.used?.['1'] ?? 0;
        assert.ok(Math.abs(grams - plateGrams) <= plateGrams * 0.01, `${j.id}: ${grams} g on tray A2, expected ${plateGrams.toFixed(3)} g`);
      }
    }

    await app.until('every webhook delivered', () => ids.every((id) => delivered.includes(id)), 30_000);
    for (const id of ids) assert.equal(delivered.filter((d) => d === id).length, 1, `${id} delivered once`);
  });
});
