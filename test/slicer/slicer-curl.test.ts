// Uploads from the curl program: libcurl's own multipart forms, HTTP Digest and Expect: 100-continue, the library
// PrusaSlicer and OrcaSlicer send with (Debian's 7.88, which Debian's PrusaSlicer 2.5 links), against the real app.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gcode, longGcode } from '../jobs/jobs-harness.js';
import { curl, hasCurl, startSlicerFarm, type SlicerFarm } from './slicer-harness.js';

const skip = hasCurl() ? false : 'the curl program is not installed (Debian package curl)';

describe('uploads from libcurl (curl)', { skip }, () => {
  let farm: SlicerFarm;
  let dir: string;
  let small: string;
  let big: string;
  before(async () => {
    farm = await startSlicerFarm();
    dir = mkdtempSync(path.join(os.tmpdir(), 'slicer-curl-'));
    small = path.join(dir, 'small.gcode');
    writeFileSync(small, gcode({ minutes: 42, grams: 7.5, type: 'PETG' }));
    // Over libcurl's 1 MiB threshold, so it sends Expect: 100-continue and waits for the go-ahead.
    big = path.join(dir, 'big.gcode');
    writeFileSync(big, longGcode(60_000));
  });
  after(async () => {
    await farm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('OctoPrint host form (print, path, file as PrusaSlicer orders them) queues copies into the group', async () => {
    const r = await curl(['-H', `X-Api-Key: ${farm.key}`, '-F', 'print=true', '-F', 'path=group/bay-1/x2', '-F', 'file=@' + small + ';filename=Benchy ü.gcode', `${farm.app.baseUrl}/api/files/local`]);
    assert.equal(r.status, 201, r.body);
    assert.match(r.headers, /\r\nLocation: http:\/\/127\.0\.0\.1:\d+\/api\/files\/local\/file_\w+\/group\/bay-1\/x2\/Benchy%20%C3%BC\.gcode/i);
    const jobs = (await farm.jobs()).filter((j) => j.name.startsWith('Benchy ü'));
    assert.deepEqual(jobs.map((j) => j.name).sort(), ['Benchy ü (1/2)', 'Benchy ü (2/2)']);
    for (const j of jobs) {
      assert.equal(j.group, 'bay-1');
      assert.equal(j.origin, 'slicer');
      assert.equal(j.slicer_api, 'octoprint');
      assert.equal(j.estimated_duration, 42 * 60, 'the slicer metadata fills the estimate');
      assert.equal(j.material.type, 'PETG');
    }
  });

  test('PrusaLink PUT with Digest (user = key prefix, password = key) and Expect: 100-continue on a large file', async () => {
    const before = await farm.holdings();
    const r = await curl([
      '--digest', '-u', `${farm.prefix}:${farm.key}`,
      '-H', 'Print-After-Upload: ?1', '-H', 'Content-Type: text/x.gcode', '-H', 'Overwrite: ?1',
      '-T', big, `${farm.app.baseUrl}/api/v1/files/group/bay-1/urgent/big%20part.gcode`,
    ]);
    assert.equal(r.status, 201, r.body);
    assert.match(r.headers, /HTTP\/1\.1 401[^]*WWW-Authenticate: Digest realm="printfarm"/i, 'libcurl first asks without credentials, then answers the challenge');
    assert.match(r.headers, /HTTP\/1\.1 100 Continue/i, 'the go-ahead came once the server read the body');
    const job = (await farm.jobs()).find((j) => j.name === 'big part');
    assert.ok(job, 'queued');
    assert.equal(job.priority, 'urgent');
    assert.equal(job.group, 'bay-1');
    assert.equal(job.slicer_api, 'prusalink');
    const after = await farm.holdings();
    assert.equal(after.files, before.files + 1);
  });

  test('a wrong Digest password is refused with 401 and the large body is never sent', async () => {
    const before = await farm.holdings();
    const r = await curl(['--digest', '-u', `${farm.prefix}:svc_live_${'x'.repeat(40)}`, '-H', 'Print-After-Upload: ?1', '-T', big, `${farm.app.baseUrl}/api/v1/files/local/wrong.gcode`]);
    assert.equal(r.status, 401, r.body);
    assert.match(r.body, /invalid Digest password/);
    assert.doesNotMatch(r.headers, /100 Continue/i, 'no go-ahead for a body that would be refused');
    assert.ok(r.uploaded < 1024 * 1024, `curl sent ${r.uploaded} bytes of a ${Math.round(longGcode(60_000).length / 1e6)} MB body`);
    assert.deepEqual(await farm.holdings(), before);
  });

  test('a wrong API key on a large PUT is answered before the body (Expect: 100-continue), nothing stored', async () => {
    const before = await farm.holdings();
    const r = await curl(['-H', `X-Api-Key: svc_live_${'y'.repeat(40)}`, '-T', big, `${farm.app.baseUrl}/api/v1/files/local/wrong.gcode`]);
    assert.equal(r.status, 401);
    assert.match(r.body, /invalid API key/);
    assert.doesNotMatch(r.headers, /100 Continue/i, 'no go-ahead for a body that would be refused');
    assert.ok(r.uploaded < 1024 * 1024, `curl sent ${r.uploaded} bytes`);
    assert.deepEqual(await farm.holdings(), before);
  });

  test('Moonraker form (file first, then root and print, as Cura\'s Moonraker plugin orders them)', async () => {
    const r = await curl(['-H', `X-Api-Key: ${farm.key}`, '-F', `file=@${small};filename=cube.gcode`, '-F', 'root=printer/voron', '-F', 'path=high', '-F', 'print=true', `${farm.app.baseUrl}/server/files/upload`]);
    assert.equal(r.status, 201, r.body);
    const body = JSON.parse(r.body);
    assert.equal(body.result.print_started, true, 'OrcaSlicer reads result.print_started');
    assert.equal(body.item.path, 'printer/voron/high/cube.gcode', 'bare Moonraker keys too');
    const job = (await farm.jobs()).find((j) => j.name === 'cube');
    assert.equal(job.priority, 'high');
    assert.equal(job.slicer_api, 'moonraker');
    assert.ok(job.printer_id, 'pinned to the printer the root named');
  });

  test('"Upload" without print stores the file and queues nothing', async () => {
    const before = await farm.holdings();
    const r = await curl(['-H', `X-Api-Key: ${farm.key}`, '-F', 'print=false', '-F', 'path=', '-F', `file=@${small};filename=later.gcode`, `${farm.app.baseUrl}/api/files/local`]);
    assert.equal(r.status, 201, r.body);
    const body = JSON.parse(r.body);
    assert.equal(body.effectivePrint, false);
    assert.deepEqual(body.printfarm.job_ids, []);
    const after = await farm.holdings();
    assert.equal(after.jobs, before.jobs);
  });
});
