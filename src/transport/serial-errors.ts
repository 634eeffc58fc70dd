// How a serial port's failures read to a farm operator: open errors worded for action, and which errors mean "unplugged".

/** Turns an open error (node-serialport's or the addon's own) into a message a farm operator can act on. */
export function openFailure(path: string, err: Error): Error {
  const msg = err.message;
  let why = msg;
  if (/No such file or directory|ENOENT/i.test(msg)) why = 'no such device (unplugged, or a wrong path?)';
  else if (/Permission denied|EACCES/i.test(msg)) why = 'permission denied (add the service user to the "dialout" group)';
  else if (/Resource temporarily unavailable|Cannot lock port|EBUSY|EAGAIN/i.test(msg)) why = 'port is in use by another program';
  else if (/Not a typewriter|Inappropriate ioctl/i.test(msg)) why = 'not a serial device';
  return new Error(`cannot open serial port ${path}: ${why}`, { cause: err });
}

/** Errors that mean the device node is gone (USB unplugged, pty master closed), whatever the call that saw it. */
export function isDisconnect(err: Error & { disconnected?: boolean; code?: string }): boolean {
  if (err.disconnected === true) return true;
  if (err.code !== undefined && ['EIO', 'ENXIO', 'ENODEV', 'EBADF'].includes(err.code)) return true;
  return /\b(EIO|ENXIO|ENODEV|EBADF)\b|i\/o error|bad file descriptor|no such device/i.test(err.message);
}

/** The error a lost link reports: worded for an operator, the driver's error as the cause. */
export function linkLost(path: string, cause: Error | null): Error {
  const reason = cause === null ? 'port closed' : isDisconnect(cause) ? 'device disconnected' : cause.message;
  return new Error(`link lost: ${reason} (${path})`, cause ? { cause } : undefined);
}
