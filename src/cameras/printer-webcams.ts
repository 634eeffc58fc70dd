// Reads the webcams a printer's own server lists, in their real formats: Moonraker's /server/webcams/list and
// OctoPrint's webcam settings (GET /api/settings → webcam.webcams). Pure: JSON in, absolute camera addresses out.

/** A webcam as the printer's server describes it, with addresses this farm can reach. */
export interface FoundWebcam {
  name: string;
  stream_url: string | null;
  snapshot_url: string | null;
  rotation: 0 | 90 | 180 | 270;
  flip_horizontal: boolean;
  flip_vertical: boolean;
  enabled: boolean;
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1', '0.0.0.0']);

/**
 * An address from the printer's settings as this farm must use it: a path is on `base` (the printer's web server), and
 * a loopback host means the printer's own machine, not this one. Null for what is not an http(s) address.
 */
export function resolveWebcamUrl(raw: unknown, base: string, printerHost: string): string | null {
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(raw.trim(), base.endsWith('/') ? base : `${base}/`);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (LOCAL_HOSTS.has(url.hostname)) url.hostname = printerHost;
  return url.toString();
}

const rotationOf = (n: unknown): FoundWebcam['rotation'] => (n === 90 || n === 180 || n === 270 ? n : 0);

/**
 * Moonraker: `{ result: { webcams: [{ name, enabled, stream_url, snapshot_url, flip_horizontal, flip_vertical,
 * rotation, service, ... }] } }`. A URL that is only a path is on the printer's web server (port 80, where Mainsail
 * or Fluidd and the webcam proxy live), as Moonraker itself completes it.
 */
export function moonrakerWebcams(answer: unknown, printerHost: string): FoundWebcam[] {
  const list = (answer as { result?: { webcams?: unknown } })?.result?.webcams ?? (answer as { webcams?: unknown })?.webcams;
  if (!Array.isArray(list)) return [];
  const base = `http://${printerHost.includes(':') ? `[${printerHost}]` : printerHost}/`;
  return list.flatMap((w: Record<string, unknown>): FoundWebcam[] => {
    if (typeof w?.name !== 'string' || w.name.trim() === '') return [];
    const stream = resolveWebcamUrl(w.stream_url, base, printerHost);
    const snapshot = resolveWebcamUrl(w.snapshot_url, base, printerHost);
    // WebRTC and HLS services have a stream URL that is not MJPEG: only their snapshot is usable here.
    const mjpeg = typeof w.service !== 'string' || /mjpeg|ustreamer|uv4l|ipstream|mjpegstreamer-adaptive/i.test(w.service);
    const streamUrl = mjpeg ? stream : null;
    if (!streamUrl && !snapshot) return [];
    return [
      {
        name: w.name.trim().slice(0, 100),
        stream_url: streamUrl,
        snapshot_url: snapshot,
        rotation: rotationOf(w.rotation),
        flip_horizontal: w.flip_horizontal === true,
        flip_vertical: w.flip_vertical === true,
        enabled: w.enabled !== false,
      },
    ];
  });
}

/**
 * OctoPrint (1.9 and later): `webcam.webcams` of GET /api/settings, each `{ name, displayName, flipH, flipV, rotate90,
 * compat: { stream, snapshot } }`. Paths are on OctoPrint's own address; rotate90 turns the picture a quarter
 * counter-clockwise, which is 270° clockwise here. Older versions' single `streamUrl` / `snapshotUrl` are read too.
 */
export function octoprintWebcams(settings: unknown, baseUrl: string, printerHost: string): FoundWebcam[] {
  const webcam = (settings as { webcam?: Record<string, unknown> })?.webcam;
  if (!webcam || typeof webcam !== 'object') return [];
  const enabled = webcam.webcamEnabled !== false;
  const list = Array.isArray(webcam.webcams) ? (webcam.webcams as Array<Record<string, unknown>>) : [];
  const legacy = list.length === 0 && (webcam.streamUrl || webcam.snapshotUrl)
    ? [{ name: 'classic', displayName: 'Webcam', flipH: webcam.flipH, flipV: webcam.flipV, rotate90: webcam.rotate90, compat: { stream: webcam.streamUrl, snapshot: webcam.snapshotUrl } }]
    : [];
  return [...list, ...legacy].flatMap((w): FoundWebcam[] => {
    const compat = (w.compat ?? {}) as Record<string, unknown>;
    const stream = resolveWebcamUrl(compat.stream, baseUrl, printerHost);
    const snapshot = resolveWebcamUrl(compat.snapshot, baseUrl, printerHost);
    if (!stream && !snapshot) return [];
    const name = typeof w.displayName === 'string' && w.displayName.trim() ? w.displayName : typeof w.name === 'string' ? w.name : 'Webcam';
    return [
      {
        name: name.trim().slice(0, 100),
        stream_url: stream,
        snapshot_url: snapshot,
        rotation: w.rotate90 === true ? 270 : 0,
        flip_horizontal: w.flipH === true,
        flip_vertical: w.flipV === true,
        enabled,
      },
    ];
  });
}
