// The appliance's own cameras for GET /v1/printers/discover: /dev/video* capture nodes with their name and stable
// by-id link (from sysfs and /dev/v4l), and which capture program (ustreamer, ffmpeg) is installed to serve them.
import { access, readdir, readFile, realpath } from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';

export interface VideoDevice {
  path: string;
  /** The stable /dev/v4l/by-id link (survives replugging), or null. */
  by_id: string | null;
  /** The driver's name for it (sysfs), e.g. "HD Pro Webcam C920". */
  name: string | null;
}

export interface VideoDiscovery {
  /** What would serve a USB camera as MJPEG: ustreamer (preferred), ffmpeg, or null when neither is installed. */
  capture_program: 'ustreamer' | 'ffmpeg' | null;
  devices: VideoDevice[];
}

async function text(file: string): Promise<string | null> {
  try {
    const t = (await readFile(file, 'utf8')).trim();
    return t === '' ? null : t;
  } catch {
    return null;
  }
}

async function byIdLinks(devRoot: string): Promise<Map<string, string>> {
  const dir = path.join(devRoot, 'v4l', 'by-id');
  const links = new Map<string, string>();
  for (const name of (await readdir(dir).catch(() => [] as string[])).sort()) {
    const target = await realpath(path.join(dir, name)).catch(() => null);
    if (target && !links.has(target)) links.set(target, path.join(dir, name));
  }
  return links;
}

/** The first program of `names` found executable on `PATH`. */
export async function findProgram(names: readonly string[], searchPath = process.env.PATH ?? '/usr/bin:/bin'): Promise<string | null> {
  for (const name of names) {
    for (const dir of searchPath.split(':').filter(Boolean)) {
      const ok = await access(path.join(dir, name), constants.X_OK).then(() => true, () => false);
      if (ok) return name;
    }
  }
  return null;
}

/**
 * /dev/video* nodes that capture pictures: a camera also has metadata nodes (sysfs `index` 1 and up), which are left
 * out. Roots are parameters so tests build a /dev and /sys tree.
 */
export async function listVideoDevices(roots: { devRoot?: string; sysRoot?: string } = {}, searchPath?: string): Promise<VideoDiscovery> {
  const devRoot = roots.devRoot ?? '/dev';
  const sysRoot = roots.sysRoot ?? '/sys';
  const names = (await readdir(devRoot).catch(() => [] as string[])).filter((n) => /^video\d+$/.test(n)).sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
  const links = await byIdLinks(devRoot);
  const devices: VideoDevice[] = [];
  for (const n of names) {
    const sys = path.join(sysRoot, 'class', 'video4linux', n);
    const index = await text(path.join(sys, 'index'));
    if (index !== null && index !== '0') continue;
    const devPath = path.join(devRoot, n);
    const real = await realpath(devPath).catch(() => devPath);
    devices.push({ path: devPath, by_id: links.get(real) ?? null, name: await text(path.join(sys, 'name')) });
  }
  const program = await findProgram(['ustreamer', 'ffmpeg'], searchPath);
  return { capture_program: program as VideoDiscovery['capture_program'], devices };
}
