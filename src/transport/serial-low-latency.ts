// Best-effort low latency for a just-opened Linux serial port: every ok pays the adapter's latency, so 16 ms to 1 ms matters.
import { readFile, realpath, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { SerialPort } from 'serialport';

export interface LowLatencyMode {
  /** The tty's ASYNC_LOW_LATENCY flag (TIOCSSERIAL) is set, as read back from the driver. */
  asyncLowLatency: boolean;
  /** FTDI-style adapters: the latency timer in ms after tuning, or null where the adapter has none or it is not writable. */
  latencyTimerMs: number | null;
}

export const NO_LOW_LATENCY: LowLatencyMode = { asyncLowLatency: false, latencyTimerMs: null };

/** The two modem-control calls low latency needs: node-serialport's on the main thread, the addon's own in a worker. */
export interface SerialLineControl {
  /** Resolves true when the driver accepted the flags. */
  set(flags: Record<string, boolean>): Promise<boolean>;
  /** The driver's low-latency flag as read back; false when it cannot be read. */
  lowLatency(): Promise<boolean>;
}

/** SerialLineControl for a port opened through node-serialport. */
export function portLineControl(port: SerialPort): SerialLineControl {
  return {
    set: (flags) => new Promise((resolve) => port.set(flags, (err) => resolve(!err))),
    lowLatency: () =>
      new Promise((resolve) => port.get((err, status) => resolve(!err && (status as { lowLatency?: boolean } | undefined)?.lowLatency === true))),
  };
}

/**
 * Lowers an FTDI adapter's latency timer (default 16 ms) to 1 ms through sysfs, which needs no setserial and no
 * ioctl. Returns the timer afterwards, or null where there is no such file or it cannot be read; a read-only file
 * (no permission) leaves the current value and reports it.
 */
export async function tuneLatencyTimer(devicePath: string, sysRoot = '/sys'): Promise<number | null> {
  let name: string;
  try {
    name = basename(await realpath(devicePath));
  } catch {
    return null;
  }
  const file = join(sysRoot, 'class', 'tty', name, 'device', 'latency_timer');
  const read = async (): Promise<number | null> => {
    try {
      const value = Number.parseInt((await readFile(file, 'utf8')).trim(), 10);
      return Number.isFinite(value) ? value : null;
    } catch {
      return null;
    }
  };
  const before = await read();
  if (before === null || before <= 1) return before;
  try {
    await writeFile(file, '1');
  } catch {
    return before;
  }
  return read();
}

/**
 * Asks the driver for low latency, then tunes an FTDI timer where there is one. Never throws: a pseudo-terminal
 * answers the modem-line ioctl with "Inappropriate ioctl for device", which only means there is nothing to tune.
 */
export async function enableLowLatency(control: SerialLineControl, devicePath: string, sysRoot = '/sys'): Promise<LowLatencyMode> {
  if (process.platform !== 'linux') return { ...NO_LOW_LATENCY };
  // bindings-cpp applies lowLatency inside set(); DTR/RTS stay asserted as open() left them, so the board is not reset.
  const flags: Record<string, boolean> = { dtr: true, rts: true, brk: false, lowLatency: true };
  const accepted = await control.set(flags);
  // set() can report success while the low-latency ioctl failed, so trust only what get() reads back.
  const asyncLowLatency = accepted && (await control.lowLatency());
  const latencyTimerMs = await tuneLatencyTimer(devicePath, sysRoot);
  return { asyncLowLatency, latencyTimerMs };
}
