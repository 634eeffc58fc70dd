// A camera's current picture on a card: fetched only while the card is on screen and the tab is visible, again every
// refresh_seconds; a camera that gives none says why in words instead of showing a broken image.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { cameraTransform, fetchPicture, type Camera } from '../lib/cameras.js';
import { errorWords } from '../lib/error-words.js';
import '../styles/cameras.css';

/** Whether `el` is on screen and the tab is visible, followed as it changes. */
function useVisible(el: { current: Element | null }): boolean {
  const [onScreen, setOnScreen] = useState(false);
  const [tabVisible, setTabVisible] = useState(document.visibilityState === 'visible');
  useEffect(() => {
    const onChange = () => setTabVisible(document.visibilityState === 'visible');
    document.addEventListener('visibilitychange', onChange);
    const target = el.current;
    const observer = target ? new IntersectionObserver((entries) => setOnScreen(entries.some((e) => e.isIntersecting))) : null;
    if (target) observer?.observe(target);
    return () => {
      document.removeEventListener('visibilitychange', onChange);
      observer?.disconnect();
    };
  }, []);
  return onScreen && tabVisible;
}

export function CameraPicture({ camera, printerName }: { camera: Camera; printerName: string }) {
  const box = useRef<HTMLDivElement>(null);
  const visible = useVisible(box);
  const [src, setSrc] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!visible || !camera.enabled) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    const load = async () => {
      try {
        const url = await fetchPicture(camera, controller.signal);
        if (stopped) return URL.revokeObjectURL(url);
        setSrc((old) => {
          if (old) URL.revokeObjectURL(old);
          return url;
        });
        setProblem(null);
      } catch (err) {
        if (stopped) return;
        setProblem(errorWords(err));
      }
      if (!stopped) timer = setTimeout(load, camera.refresh_seconds * 1000);
    };
    void load();
    return () => {
      stopped = true;
      controller.abort();
      clearTimeout(timer);
    };
  }, [visible, camera.id, camera.refresh_seconds, camera.enabled]);
  useEffect(() => () => void (src && URL.revokeObjectURL(src)), [src]);
  const label = `${camera.name}: current picture of ${printerName}`;
  return html`<div class="cam-picture" ref=${box} data-camera-id=${camera.id}>
    ${!camera.enabled
      ? html`<p class="cam-problem muted">Camera ${camera.name} is off</p>`
      : problem
        ? html`<p class="cam-problem" role="status"><span aria-hidden="true">⚠ </span>Camera ${camera.name} gives no picture: ${problem}</p>`
        : src
          ? html`<img src=${src} alt=${label} style=${{ transform: cameraTransform(camera) }} decoding="async" />`
          : html`<p class="cam-loading muted" aria-busy="true">Loading the picture…</p>`}
  </div>`;
}
