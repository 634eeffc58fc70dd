// A slicer-side client no one here wrote: OctoPrint 1.9.3's own command-line client (`octoprint client`, from the
// OctoPrint the peers kit builds) tests and uploads to the farm's emulated OctoPrint host.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gcode } from '../jobs/jobs-harness.js';
import { startSlicerFarm, type SlicerFarm } from '../slicer/slicer-harness.js';
import { peerMissing, peerPath } from './peers-env.js';

const run = promisify(execFile);

describe('OctoPrint\'s own client against the farm', { skip: peerMissing('octoprint') }, () => {
  let farm: SlicerFarm;
  let home: string;
  let file: string;
  before(async () => {
    farm = await startSlicerFarm();
    home = mkdtempSync(path.join(os.tmpdir(), 'octoprint-client-'));
    file = path.join(home, 'part.gcode');
    writeFileSync(file, gcode({ minutes: 30, type: 'PLA' }));
  });
  after(async () => {
    await farm.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** `octoprint client -a KEY -h 127.0.0.1 -p PORT <args>`; async, because the farm answers from this very process. */
  async function client(key: string, ...args: string[]): Promise<{ ok: boolean; out: string }> {
    const port = new URL(farm.app.baseUrl).port;
    try {
      const r = await run(peerPath('octoprint', 'venv', 'bin', 'octoprint'), ['client', '-a', key, '-h', '127.0.0.1', '-p', port, ...args], {
        env: { ...process.env, HOME: home },
        timeout: 60_000,
      });
      return { ok: true, out: r.stdout + r.stderr };
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    }
  }

  test('GET api/version answers as OctoPrint', async () => {
    const r = await client(farm.key, 'get', 'api/version');
    assert.ok(r.ok, r.out);
    assert.match(r.out, /Status Code: 200/);
    assert.match(r.out, /"text":"OctoPrint 1\.9\.3/);
  });

  test('upload with print=true and a group folder becomes a queued job in that group', async () => {
    const r = await client(farm.key, 'upload', '-P', 'print', 'true', '-P', 'path', 'group/bay-1/x2', '--file-name', 'client part.gcode', 'api/files/local', file);
    assert.ok(r.ok, r.out);
    assert.match(r.out, /Status Code: 201/);
    const jobs = (await farm.jobs()).filter((j) => j.name.startsWith('client part'));
    assert.equal(jobs.length, 2);
    for (const j of jobs) {
      assert.equal(j.group, 'bay-1');
      assert.equal(j.origin, 'slicer');
      assert.equal(j.slicer_api, 'octoprint');
      assert.equal(j.estimated_duration, 30 * 60);
    }
  });

  test('a UTF-8 file name (Python\'s multipart encoding) reads back as typed', async () => {
    const r = await client(farm.key, 'upload', '-P', 'print', 'true', '--file-name', 'Kůň ü.gcode', 'api/files/local', file);
    assert.ok(r.ok, r.out);
    assert.match(r.out, /Status Code: 201/);
    assert.ok((await farm.jobs()).some((j) => j.name === 'Kůň ü'), (await farm.jobs()).map((j) => j.name).join(', '));
  });

  test('a wrong key is refused with 401 and the words', async () => {
    const before = await farm.holdings();
    const r = await client(`svc_live_${'w'.repeat(40)}`, 'upload', '-P', 'print', 'true', 'api/files/local', file);
    assert.match(r.out, /Status Code: 401/);
    assert.match(r.out, /invalid API key/);
    assert.deepEqual(await farm.holdings(), before);
  });
});
