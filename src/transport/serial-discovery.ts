// Lists the serial ports a printer could be on; works without udev (containers, minimal images) by reading /dev and sysfs.
import { readdir, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SerialPort } from 'serialport';

export interface SerialPortInfo {
  /** The device node, e.g. /dev/ttyACM0. */
  path: string;
  /** A stable /dev/serial/by-id/ link to it, which survives replugging in another order. */
  by_id?: string;
  manufacturer?: string;
  /** USB ids as 4 lowercase hex digits, e.g. "2c99". */
  vendor_id?: string;
  product_id?: string;
  serial_number?: string;
}

export interface DiscoveryOptions {
  /** Roots for tests; default "/dev" and "/sys". */
  devRoot?: string;
  sysRoot?: string;
  /** Ask udev through SerialPort.list() first; default true. */
  useUdev?: boolean;
}

/** USB CDC-ACM boards (most printers) and USB-serial adapters (CH340, FTDI, CP210x): where printers appear. */
const PRINTER_TTY = /^tty(ACM|USB)\d+$/;

async function readText(file: string): Promise<string | undefined> {
  try {
    const text = (await readFile(file, 'utf8')).trim();
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

/** Maps device paths to their /dev/serial/by-id link. */
async function byIdLinks(devRoot: string): Promise<Map<string, string>> {
  const dir = join(devRoot, 'serial', 'by-id');
  const links = new Map<string, string>();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return links;
  }
  for (const name of names.sort()) {
    try {
      const target = await realpath(join(dir, name));
      if (!links.has(target)) links.set(target, join(dir, name));
    } catch {
      // A dangling link: the device went away between readdir and realpath.
    }
  }
  return links;
}

/** Reads USB ids from sysfs: the tty's device is a USB interface; the USB device holding idVendor is a parent of it. */
async function usbInfo(sysRoot: string, ttyName: string): Promise<Partial<SerialPortInfo>> {
  let dir: string;
  let root: string;
  try {
    root = await realpath(sysRoot);
    dir = await realpath(join(sysRoot, 'class', 'tty', ttyName, 'device'));
  } catch {
    return {};
  }
  for (let depth = 0; depth < 4 && dir.startsWith(root + '/'); depth++) {
    const vendor = await readText(join(dir, 'idVendor'));
    if (vendor !== undefined) {
      const info: Partial<SerialPortInfo> = { vendor_id: vendor.toLowerCase() };
      const product = await readText(join(dir, 'idProduct'));
      const manufacturer = await readText(join(dir, 'manufacturer'));
      const serial = await readText(join(dir, 'serial'));
      if (product !== undefined) info.product_id = product.toLowerCase();
      if (manufacturer !== undefined) info.manufacturer = manufacturer;
      if (serial !== undefined) info.serial_number = serial;
      return info;
    }
    dir = dirname(dir);
  }
  return {};
}

/** Without udev: every ttyACM/ttyUSB node plus whatever the by-id links point at, described from sysfs. */
async function listFromFilesystem(devRoot: string, sysRoot: string, byId: Map<string, string>): Promise<SerialPortInfo[]> {
  const paths = new Set<string>(byId.keys());
  try {
    for (const name of await readdir(devRoot)) {
      if (PRINTER_TTY.test(name)) paths.add(join(devRoot, name));
    }
  } catch {
    // No readable /dev (unusual sandbox): the by-id links, if any, are all we have.
  }
  const ports: SerialPortInfo[] = [];
  for (const path of paths) {
    const info: SerialPortInfo = { path, ...(await usbInfo(sysRoot, basename(path))) };
    const link = byId.get(path);
    if (link !== undefined) info.by_id = link;
    ports.push(info);
  }
  return ports;
}

async function listFromUdev(byId: Map<string, string>): Promise<SerialPortInfo[]> {
  // udev also lists the board's own UARTs (ttyS0, ttyAMA0); printers are the USB ports, as without udev.
  const found = (await SerialPort.list()).filter((p) => PRINTER_TTY.test(basename(p.path)) || byId.has(p.path));
  return found.map((p) => {
    const info: SerialPortInfo = { path: p.path };
    const link = byId.get(p.path);
    if (link !== undefined) info.by_id = link;
    if (p.manufacturer) info.manufacturer = p.manufacturer;
    if (p.vendorId) info.vendor_id = p.vendorId.toLowerCase();
    if (p.productId) info.product_id = p.productId.toLowerCase();
    if (p.serialNumber) info.serial_number = p.serialNumber;
    return info;
  });
}

/**
 * The serial ports present now, sorted by path. Uses udev when it answers ("spawn udevadm ENOENT" where it is
 * missing) and falls back to /dev and sysfs; never throws for a missing udev. Pseudo-terminals never appear.
 */
export async function listSerialPorts(opts: DiscoveryOptions = {}): Promise<SerialPortInfo[]> {
  const devRoot = opts.devRoot ?? '/dev';
  const sysRoot = opts.sysRoot ?? '/sys';
  const byId = await byIdLinks(devRoot);
  let ports: SerialPortInfo[] | null = null;
  if (opts.useUdev ?? true) {
    try {
      ports = await listFromUdev(byId);
    } catch {
      ports = null;
    }
  }
  ports ??= await listFromFilesystem(devRoot, sysRoot, byId);
  return ports.sort((a, b) => a.path.localeCompare(b.path));
}
