// Cameras for the pages: the records (GET /v1/cameras), a current picture fetched as a blob (so a failure arrives in
// words, never as a broken image), and the CSS transform for rotation and flip.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type Page } from './api.js';
import { learnServerTime } from './clock.js';
import { useLive } from './hooks.js';

export interface Camera {
  id: string;
  printer_id: string;
  name: string;
  source: string;
  stream_url: string | null;
  snapshot_url: string | null;
  has_stream_credentials: boolean;
  has_snapshot_credentials: boolean;
  rotation: 0 | 90 | 180 | 270;
  flip_horizontal: boolean;
  flip_vertical: boolean;
  refresh_seconds: number;
  enabled: boolean;
  job_pictures: boolean;
  job_picture_step: number | null;
  state: { status: string; error: { code: string; message: string } | null; viewers: number; last_frame_at: string | null };
  snapshot_path: string;
  stream_path: string | null;
}

/** Every camera, by printer id (the farm has few enough to read in one or two pages). */
export async function loadCameras(printerId?: string): Promise<Camera[]> {
  const all: Camera[] = [];
  for (let page = 1; page <= 10; page++) {
    const res = await api.get<Page<Camera>>('/v1/cameras', { per_page: 100, page, ...(printerId ? { printer_id: printerId } : {}) });
    all.push(...res.data);
    if (page >= res.pagination.total_pages) break;
  }
  return all;
}

/** The cameras of every printer, read again when a printer changes (a camera added in its settings). */
export function useCameraMap(): Map<string, Camera[]> {
  const [map, setMap] = useState<Map<string, Camera[]>>(new Map());
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let live = true;
    loadCameras().then(
      (list) => {
        if (!live) return;
        const next = new Map<string, Camera[]>();
        for (const c of list) next.set(c.printer_id, [...(next.get(c.printer_id) ?? []), c]);
        setMap(next);
      },
      // Without cameras the cards simply show none; the farm's own errors are shown elsewhere.
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [generation]);
  useLive(['printer.updated'], () => setGeneration((g) => g + 1));
  return map;
}

/** The current picture as an object URL (the caller revokes it), or an ApiError whose message says why there is none. */
export async function fetchPicture(camera: Camera, signal?: AbortSignal): Promise<string> {
  let res: Response;
  const sentAt = Date.now();
  try {
    res = await fetch(camera.snapshot_path, { credentials: 'same-origin', cache: 'no-store', ...(signal ? { signal } : {}) });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', 'The printfarm server cannot be reached.');
  }
  learnServerTime(res.headers.get('Date'), sentAt, Date.now());
  if (!res.ok) {
    let message = `The server answered ${res.status}.`;
    try {
      message = ((await res.json()) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      // Not JSON: the status has to do.
    }
    throw new ApiError(res.status, 'camera_unavailable', message);
  }
  return URL.createObjectURL(await res.blob());
}

/** The CSS transform showing the picture as the owner set it up (rotation clockwise, then mirroring). */
export function cameraTransform(c: Pick<Camera, 'rotation' | 'flip_horizontal' | 'flip_vertical'>): string | undefined {
  const parts = [c.rotation ? `rotate(${c.rotation}deg)` : '', c.flip_horizontal ? 'scaleX(-1)' : '', c.flip_vertical ? 'scaleY(-1)' : ''].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : undefined;
}
