// Per-camera families: frames in from the camera and out to viewers, frames a slow viewer skipped, viewers now, restarts.
import type { Registry } from 'prom-client';
import { collectedCounter, collectedGauge, type Sample } from './collected-metric.js';
import type { MetricsSources } from './metrics-sources.js';

const LABELS = ['camera_id', 'printer_id'] as const;

type Stats = ReturnType<NonNullable<MetricsSources['cameraStats']>>[number];

export function registerCameraMetrics(registry: Registry, src: MetricsSources): void {
  const read = (pick: (s: Stats) => number) => (): Sample[] =>
    (src.cameraStats?.() ?? []).map((s) => ({ labels: { camera_id: s.id, printer_id: s.printer_id }, value: pick(s) }));
  collectedCounter(
    registry,
    { name: 'printfarm_camera_frames_in_total', help: 'Frames received from the camera on its one upstream connection (since the camera was first watched).', labelNames: LABELS },
    read((s) => s.frames_in),
  );
  collectedCounter(
    registry,
    { name: 'printfarm_camera_frames_out_total', help: 'Frames written to live viewers (one per viewer per frame).', labelNames: LABELS },
    read((s) => s.frames_out),
  );
  collectedCounter(
    registry,
    { name: 'printfarm_camera_frames_dropped_total', help: 'Frames a viewer skipped because its connection still held the previous one (a slow viewer).', labelNames: LABELS },
    read((s) => s.dropped),
  );
  collectedGauge(registry, { name: 'printfarm_camera_viewers', help: 'Live viewers of the camera on this node now.', labelNames: LABELS }, read((s) => s.viewers));
  collectedCounter(
    registry,
    { name: 'printfarm_camera_restarts_total', help: "Times the camera's upstream connection was opened again after a fault (stall, close, error).", labelNames: LABELS },
    read((s) => s.reconnects),
  );
}
