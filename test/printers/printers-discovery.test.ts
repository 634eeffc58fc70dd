// GET /v1/printers/discover on a built /dev + sysfs tree: ports with by-id links and USB ids, and which printer uses each.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrintersApp, type PrintersApp } from './printers-api-harness.js';

describe('serial port discovery', () => {
  let root: string;
  let dev: string;
  let app: PrintersApp;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pf-printers-disc-'));
    dev = join(root, 'dev');
    const sys = join(root, 'sys');
    await mkdir(join(dev, 'serial', 'by-id'), { recursive: true });
    for (const name of ['ttyACM0', 'ttyACM1', 'ttyUSB0']) await writeFile(join(dev, name), '');
    await symlink('../../ttyACM0', join(dev, 'serial', 'by-id', 'usb-Prusa_MK4-if00'));
    const usb = join(sys, 'devices', 'usb1', '1-1');
    await mkdir(join(usb, '1-1:1.0'), { recursive: true });
    await writeFile(join(usb, 'idVendor'), '2C99\n');
    await writeFile(join(usb, 'idProduct'), '001A\n');
    await writeFile(join(usb, 'manufacturer'), 'Prusa Research\n');
    await mkdir(join(sys, 'class', 'tty', 'ttyACM0'), { recursive: true });
    await symlink(join(usb, '1-1:1.0'), join(sys, 'class', 'tty', 'ttyACM0', 'device'));
    app = await startPrintersApp({ printers: { discovery: { devRoot: dev, sysRoot: sys, useUdev: false } } });
  });
  after(async () => {
    await app.close();
    await rm(root, { recursive: true, force: true });
  });

  it('lists the ports and names the printer on each, whether it was added by by-id link or by device path', async () => {
    const mk4 = await app.create({ name: 'mk4', connection_url: `serial://${join(dev, 'serial', 'by-id', 'usb-Prusa_MK4-if00')}?baud=115200` });
    const ender = await app.create({ name: 'ender', connection_url: `${join(dev, 'ttyUSB0')}?profile=marlin` });
    const res = await app.call('GET', '/v1/printers/discover');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, [
      {
        path: join(dev, 'ttyACM0'),
        by_id: join(dev, 'serial', 'by-id', 'usb-Prusa_MK4-if00'),
        manufacturer: 'Prusa Research',
        vendor_id: '2c99',
        product_id: '001a',
        serial_number: null,
        printer_id: mk4.id,
      },
      { path: join(dev, 'ttyACM1'), by_id: null, manufacturer: null, vendor_id: null, product_id: null, serial_number: null, printer_id: null },
      { path: join(dev, 'ttyUSB0'), by_id: null, manufacturer: null, vendor_id: null, product_id: null, serial_number: null, printer_id: ender.id },
    ]);
    // Without an mDNS browser (the server's --no-mdns; tests unless they bring one on loopback) nothing is browsed.
    assert.deepEqual(res.body.network, []);
    assert.deepEqual(res.body.mdns, { enabled: false, browse_ms: null, browsed_at: null, cached: false, error: null });
    // The same device under another name is refused: two sessions would fight over one port.
    const twice = await app.call('POST', '/v1/printers', { name: 'again', connection_url: `serial://${join(dev, 'ttyACM0')}` });
    assert.equal(twice.status, 409);
    assert.match(twice.body.error.message, new RegExp(`^connection_url: printer ${mk4.id} already uses`));
    // The discover route is matched before /:id (which would answer 404), and takes only mdns_browse_ms.
    const extra = await app.call('GET', '/v1/printers/discover?x=1');
    assert.equal(extra.status, 400);
    assert.equal(extra.body.error.message, 'unknown query parameter "x"');
    // A fake device never answers: the printer stays offline (and keeps retrying) without harming the API.
    assert.equal((await app.get(mk4.id)).status, 'offline');
  });
});
