// The printer page's cameras: each one live (its MJPEG stream, rotated and flipped as set up) with its state in words,
// or its current picture when it has only a snapshot URL.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { cameraTransform, loadCameras, type Camera } from '../lib/cameras.js';
import { useResource } from '../lib/hooks.js';
import { href } from '../lib/router.js';
import { CameraPicture } from '../components/camera-picture.js';
import { ErrorNote } from '../components/ui.js';
import '../styles/cameras.css';

/** How often the state of a watched camera is read again (live, or why not). */
const STATE_MS = 4000;

function stateWords(c: Camera): string {
  if (c.state.error) return `No picture: ${c.state.error.message}`;
  if (c.state.status === 'live') return 'Live';
  return 'Connecting…';
}

function LiveCamera({ camera, printerName }: { camera: Camera; printerName: string }) {
  const [current, setCurrent] = useState(camera);
  const [broken, setBroken] = useState(false);
  useEffect(() => {
    let stopped = false;
    const timer = setInterval(async () => {
      try {
        const next = await api.get<Camera>(`/v1/cameras/${encodeURIComponent(camera.id)}`);
        if (!stopped) setCurrent(next);
      } catch {
        // The picture keeps showing; the next read may work.
      }
    }, STATE_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [camera.id]);
  const words = stateWords(current);
  return html`<figure class="cam-live">
    ${broken
      ? html`<p class="cam-problem" role="status"><span aria-hidden="true">⚠ </span>${words}</p>`
      : html`<div class="cam-frame"><img src=${camera.stream_path} alt=${`${camera.name}: live view of ${printerName}`}
          style=${{ transform: cameraTransform(camera) }} onError=${() => setBroken(true)} /></div>`}
    <figcaption><strong>${camera.name}</strong> · <span class=${current.state.error ? 'warn-text' : 'muted'} data-camera-state=${current.state.status}>${words}</span></figcaption>
  </figure>`;
}

export function PrinterCameras({ printerId, printerName, canWrite }: { printerId: string; printerName: string; canWrite: boolean }) {
  const cameras = useResource(() => loadCameras(printerId), [printerId]);
  const list = cameras.data ?? [];
  if (cameras.data && list.length === 0 && !canWrite) return null;
  return html`<section class="card printer-cameras" aria-labelledby="cameras-title">
    <h2 id="cameras-title">Cameras</h2>
    <${ErrorNote} error=${cameras.error} />
    ${cameras.data && list.length === 0
      ? html`<p class="muted">No camera yet: <a href=${href('printer-settings', printerId)}>add a camera</a> (any MJPEG or snapshot URL).</p>`
      : null}
    <div class="cam-list">
      ${list.map((c) =>
        c.stream_path && c.enabled
          ? html`<${LiveCamera} key=${c.id} camera=${c} printerName=${printerName} />`
          : html`<figure key=${c.id} class="cam-live"><${CameraPicture} camera=${c} printerName=${printerName} /><figcaption><strong>${c.name}</strong></figcaption></figure>`,
      )}
    </div>
  </section>`;
}
