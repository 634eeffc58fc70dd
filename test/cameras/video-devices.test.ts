// USB cameras on the appliance in GET /v1/printers/discover: /dev/video* capture nodes (metadata nodes left out) with
// their name and by-id link from a built /dev and /sys tree, and which capture program is installed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listVideoDevices } from '../../src/cameras/video-devices.js';
import { startPrintersApp } from '../printers/printers-api-harness.js';

describe('USB cameras in discover', () => {
  let root: string;
  let dev: string;
  let sys: string;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'pf-video-'));
    dev = path.join(root, 'dev');
    sys = path.join(root, 'sys');
    await mkdir(path.join(dev, 'v4l', 'by-id'), { recursive: true });
    // A webcam as Linux shows it: video0 captures, video1 is its metadata node; video2 is a second camera.
    for (const [n, name, index] of [['video0', 'HD Pro Webcam C920', '0'], ['video1', 'HD Pro Webcam C920', '1'], ['video2', 'USB2.0 Camera', '0']] as const) {
      await writeFile(path.join(dev, n), '');
      await mkdir(path.join(sys, 'class', 'video4linux', n), { recursive: true });
      await writeFile(path.join(sys, 'class', 'video4linux', n, 'name'), `${name}\n`);
      await writeFile(path.join(sys, 'class', 'video4linux', n, 'index'), `${index}\n`);
    }
    await symlink('../../video0', path.join(dev, 'v4l', 'by-id', 'usb-046d_HD_Pro_Webcam_C920_ABC123-video-index0'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('lists capture nodes with name and by-id link, and the capture program on PATH', async () => {
    const bin = path.join(root, 'bin');
    await mkdir(bin);
    const none = await listVideoDevices({ devRoot: dev, sysRoot: sys }, bin);
    assert.equal(none.capture_program, null, 'neither ustreamer nor ffmpeg: USB cameras cannot be served');
    assert.deepEqual(none.devices, [
      { path: path.join(dev, 'video0'), by_id: path.join(dev, 'v4l', 'by-id', 'usb-046d_HD_Pro_Webcam_C920_ABC123-video-index0'), name: 'HD Pro Webcam C920' },
      { path: path.join(dev, 'video2'), by_id: null, name: 'USB2.0 Camera' },
    ]);
    await writeFile(path.join(bin, 'ffmpeg'), '#!/bin/sh\n');
    await chmod(path.join(bin, 'ffmpeg'), 0o755);
    assert.equal((await listVideoDevices({ devRoot: dev, sysRoot: sys }, bin)).capture_program, 'ffmpeg');
    await writeFile(path.join(bin, 'ustreamer'), '#!/bin/sh\n');
    await chmod(path.join(bin, 'ustreamer'), 0o755);
    assert.equal((await listVideoDevices({ devRoot: dev, sysRoot: sys }, bin)).capture_program, 'ustreamer', 'ustreamer is preferred');
  });

  it('answers them in GET /v1/printers/discover under video', async () => {
    const app = await startPrintersApp({ printers: { discovery: { devRoot: dev, sysRoot: sys, useUdev: false } } });
    try {
      const res = await app.call('GET', '/v1/printers/discover?mdns_browse_ms=200');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.video.devices.map((d: { name: string }) => d.name), ['HD Pro Webcam C920', 'USB2.0 Camera']);
      assert.ok(['ustreamer', 'ffmpeg', null].includes(res.body.video.capture_program));
    } finally {
      await app.close();
    }
  });
});
