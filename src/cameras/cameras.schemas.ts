// Request bodies of the cameras API (TypeBox: schema and type from one definition) and the camera record as returned.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CAMERA_URL_MAX } from './camera-url.js';

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const url = (description: string) => nullable(Type.String({ minLength: 1, maxLength: CAMERA_URL_MAX, description }));

export const ROTATIONS = [0, 90, 180, 270] as const;
export const REFRESH_SECONDS = { min: 2, max: 3600 } as const;

const writable = {
  name: Type.String({ minLength: 1, maxLength: 100, description: 'Display name, e.g. "Nozzle cam".' }),
  stream_url: url(
    'The MJPEG stream (multipart/x-mixed-replace), e.g. http://voron.local/webcam/?action=stream. A user name and password in it are sealed at rest and never returned.',
  ),
  snapshot_url: url('A URL answering one JPEG, e.g. http://voron.local/webcam/?action=snapshot. Credentials as for stream_url.'),
  rotation: Type.Unsafe<0 | 90 | 180 | 270>({ type: 'integer', enum: [...ROTATIONS], description: 'Clockwise rotation in degrees the dashboard applies.' }),
  flip_horizontal: Type.Boolean({ description: 'Mirror the picture left to right.' }),
  flip_vertical: Type.Boolean({ description: 'Mirror the picture top to bottom.' }),
  refresh_seconds: Type.Integer({
    minimum: REFRESH_SECONDS.min,
    maximum: REFRESH_SECONDS.max,
    description: 'How often a dashboard card refreshes its picture, while the card is visible (default 10).',
  }),
  enabled: Type.Boolean({ description: 'false: no picture is fetched and no job is photographed.' }),
  job_pictures: Type.Boolean({ description: "Take pictures of this printer's jobs at start and end (default true)." }),
  job_picture_step: nullable(Type.Integer({ minimum: 5, maximum: 50, description: 'Also a picture every this many percent of progress; null: none between.' })),
};

const example = {
  name: 'Nozzle cam',
  stream_url: 'http://user:secret@192.168.1.50:8080/?action=stream',
  snapshot_url: 'http://user:secret@192.168.1.50:8080/?action=snapshot',
  rotation: 180,
  refresh_seconds: 10,
};

export const CameraCreateBody = Type.Object(
  {
    name: writable.name,
    stream_url: Type.Optional(writable.stream_url),
    snapshot_url: Type.Optional(writable.snapshot_url),
    rotation: Type.Optional(writable.rotation),
    flip_horizontal: Type.Optional(writable.flip_horizontal),
    flip_vertical: Type.Optional(writable.flip_vertical),
    refresh_seconds: Type.Optional(writable.refresh_seconds),
    enabled: Type.Optional(writable.enabled),
    job_pictures: Type.Optional(writable.job_pictures),
    job_picture_step: Type.Optional(writable.job_picture_step),
  },
  { additionalProperties: false, examples: [example] },
);
export type CameraCreateInput = Static<typeof CameraCreateBody>;

export const CameraUpdateBody = Type.Partial(CameraCreateBody, { additionalProperties: false, minProperties: 1, examples: [{ rotation: 90, refresh_seconds: 5 }] });
export type CameraUpdateInput = Static<typeof CameraUpdateBody>;

const FAULTS = ['forbidden', 'unreachable', 'timeout', 'unauthorized', 'http_error', 'not_a_camera', 'garbage', 'frame_too_large', 'stalled', 'closed'];

export const CameraRecordSchema = Type.Object(
  {
    id: Type.String({ description: 'cam_...' }),
    printer_id: Type.String(),
    name: Type.String(),
    source: Type.String({ description: 'url (typed by the owner); moonraker, octoprint, usb (found by the farm)' }),
    stream_url: nullable(Type.String({ description: 'Without user name and password' })),
    snapshot_url: nullable(Type.String({ description: 'Without user name and password' })),
    has_stream_credentials: Type.Boolean(),
    has_snapshot_credentials: Type.Boolean(),
    rotation: Type.Integer(),
    flip_horizontal: Type.Boolean(),
    flip_vertical: Type.Boolean(),
    refresh_seconds: Type.Integer(),
    enabled: Type.Boolean(),
    job_pictures: Type.Boolean(),
    job_picture_step: nullable(Type.Integer()),
    state: Type.Object(
      {
        status: Type.String({ description: 'idle (no viewer, no connection), connecting, live, error' }),
        error: nullable(
          Type.Object({
            code: Type.String({ description: FAULTS.join(', ') }),
            message: Type.String({ description: 'What went wrong, in words' }),
          }),
        ),
        viewers: Type.Integer({ description: 'Live-stream viewers on this node' }),
        last_frame_at: nullable(Type.String({ format: 'date-time' })),
      },
      { description: 'The camera as this node sees it now' },
    ),
    snapshot_path: Type.String({ description: 'Where the current picture is served (image/jpeg)' }),
    stream_path: nullable(Type.String({ description: 'Where the live stream is served (multipart/x-mixed-replace); null without stream_url' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  {
    examples: [
      {
        id: 'cam_4fQ9c2LmZx81PqR0aT7u',
        printer_id: 'prt_8sK2m1Qw7ZrT0bYc3VxN',
        name: 'Nozzle cam',
        source: 'url',
        stream_url: 'http://192.168.1.50:8080/?action=stream',
        snapshot_url: 'http://192.168.1.50:8080/?action=snapshot',
        has_stream_credentials: true,
        has_snapshot_credentials: true,
        rotation: 180,
        flip_horizontal: false,
        flip_vertical: false,
        refresh_seconds: 10,
        enabled: true,
        job_pictures: true,
        job_picture_step: null,
        state: { status: 'idle', error: null, viewers: 0, last_frame_at: null },
        snapshot_path: '/v1/cameras/cam_4fQ9c2LmZx81PqR0aT7u/snapshot',
        stream_path: '/v1/cameras/cam_4fQ9c2LmZx81PqR0aT7u/stream',
        created_at: '2026-11-28T02:00:00.000Z',
        updated_at: '2026-11-28T02:00:00.000Z',
      },
    ],
  },
);
export type CameraRecord = Static<typeof CameraRecordSchema>;
