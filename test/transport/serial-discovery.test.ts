// Serial port discovery without udev, on this machine and on a built /dev + sysfs tree; and FTDI latency-timer tuning.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { listSerialPorts } from '../../src/transport/serial-discovery.js';
import { tuneLatencyTimer } from '../../src/transport/serial-low-latency.js';

test('listing on this machine returns an array and never throws, with or without udev', async () => {
  const ports = await listSerialPorts();
  assert.ok(Array.isArray(ports));
  // Only USB ports: a board's own UARTs (ttyS0 on this machine, where udev lists it) never appear, whichever way is used.
  for (const p of ports) assert.match(p.path, /\/tty(ACM|USB)\d+$/);
  const fallback = await listSerialPorts({ useUdev: false });
  assert.ok(Array.isArray(fallback));
});

describe('the filesystem fallback on a built /dev and /sys tree', () => {
  let root: string;
  let dev: string;
  let sys: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'printfarm-disc-'));
    dev = join(root, 'dev');
    sys = join(root, 'sys');
    await mkdir(join(dev, 'serial', 'by-id'), { recursive: true });
    for (const name of ['ttyACM0', 'ttyUSB0', 'ttyUSB1', 'ttyS0', 'tty1', 'ttyACMx']) await writeFile(join(dev, name), '');
    await symlink('../../ttyACM0', join(dev, 'serial', 'by-id', 'usb-Prusa_Research__prusa3d.com__Original_Prusa_i3_MK3-if00'));
    await symlink('../../ttyUSB0', join(dev, 'serial', 'by-id', 'usb-1a86_USB_Serial-if00-port0'));
    await symlink('../../ttyUSB9', join(dev, 'serial', 'by-id', 'usb-dangling-if00'));

    // Real layout: class/tty/<name>/device -> the USB interface; the USB device above it holds the ids.
    const usbDev = (bus: string) => join(sys, 'devices', 'pci0000:00', 'usb1', bus);
    await mkdir(join(usbDev('1-1'), '1-1:1.0'), { recursive: true });
    await writeFile(join(usbDev('1-1'), 'idVendor'), '2C99\n');
    await writeFile(join(usbDev('1-1'), 'idProduct'), '0002\n');
    await writeFile(join(usbDev('1-1'), 'manufacturer'), 'Prusa Research (prusa3d.com)\n');
    await writeFile(join(usbDev('1-1'), 'serial'), 'CZPX1234\n');
    await mkdir(join(usbDev('1-2'), '1-2:1.0', 'ttyUSB0'), { recursive: true });
    await writeFile(join(usbDev('1-2'), 'idVendor'), '1a86\n');
    await writeFile(join(usbDev('1-2'), 'idProduct'), '7523\n');
    await mkdir(join(sys, 'class', 'tty', 'ttyACM0'), { recursive: true });
    await mkdir(join(sys, 'class', 'tty', 'ttyUSB0'), { recursive: true });
    await symlink(join(usbDev('1-1'), '1-1:1.0'), join(sys, 'class', 'tty', 'ttyACM0', 'device'));
    await symlink(join(usbDev('1-2'), '1-2:1.0', 'ttyUSB0'), join(sys, 'class', 'tty', 'ttyUSB0', 'device'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('finds ttyACM/ttyUSB nodes, their by-id links and USB ids, sorted by path', async () => {
    const ports = await listSerialPorts({ devRoot: dev, sysRoot: sys, useUdev: false });
    assert.deepEqual(ports, [
      {
        path: join(dev, 'ttyACM0'),
        by_id: join(dev, 'serial', 'by-id', 'usb-Prusa_Research__prusa3d.com__Original_Prusa_i3_MK3-if00'),
        vendor_id: '2c99',
        product_id: '0002',
        manufacturer: 'Prusa Research (prusa3d.com)',
        serial_number: 'CZPX1234',
      },
      {
        path: join(dev, 'ttyUSB0'),
        by_id: join(dev, 'serial', 'by-id', 'usb-1a86_USB_Serial-if00-port0'),
        vendor_id: '1a86',
        product_id: '7523',
      },
      { path: join(dev, 'ttyUSB1') },
    ]);
  });

  test('a missing /dev gives an empty list, not an error', async () => {
    assert.deepEqual(await listSerialPorts({ devRoot: join(root, 'nope'), sysRoot: sys, useUdev: false }), []);
  });

  test('an FTDI latency timer is lowered to 1 ms; adapters without one are left alone', async () => {
    await mkdir(join(sys, 'class', 'tty', 'ttyUSB1', 'device'), { recursive: true });
    const timer = join(sys, 'class', 'tty', 'ttyUSB1', 'device', 'latency_timer');
    await writeFile(timer, '16\n');
    assert.equal(await tuneLatencyTimer(join(dev, 'ttyUSB1'), sys), 1);
    assert.equal((await readFile(timer, 'utf8')).trim(), '1');
    assert.equal(await tuneLatencyTimer(join(dev, 'ttyACM0'), sys), null);
    assert.equal(await tuneLatencyTimer(join(dev, 'ttyACM-missing'), sys), null);
  });
});
