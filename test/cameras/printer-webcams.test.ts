// Moonraker's and OctoPrint's webcam lists read into camera addresses: relative paths completed as each server does,
// loopback meaning the printer's machine, OctoPrint's counter-clockwise rotate90, and streams that are not MJPEG left out.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { moonrakerWebcams, octoprintWebcams, resolveWebcamUrl } from '../../src/cameras/printer-webcams.js';

describe('printer webcam lists', () => {
  it("reads Moonraker's /server/webcams/list as Moonraker answers it", () => {
    // The shape of Moonraker's answer (components/webcam.py, _list_webcams / WebCam.as_dict).
    const answer = {
      result: {
        webcams: [
          {
            name: 'nozzle', location: 'printer', service: 'mjpegstreamer-adaptive', enabled: true, icon: 'mdiWebcam', target_fps: 15,
            target_fps_idle: 5, stream_url: '/webcam/?action=stream', snapshot_url: '/webcam/?action=snapshot', flip_horizontal: true,
            flip_vertical: false, rotation: 90, aspect_ratio: '4:3', extra_data: {}, source: 'database', uid: 'f8b3c6a1',
          },
          { name: 'bed', service: 'webrtc-camerastreamer', enabled: false, stream_url: 'http://127.0.0.1:8081/webrtc', snapshot_url: 'http://127.0.0.1:8081/snapshot', rotation: 0 },
          { name: 'hls only', service: 'hlsstream', stream_url: '/hls/stream.m3u8', snapshot_url: '' },
        ],
      },
    };
    assert.deepEqual(moonrakerWebcams(answer, '192.168.1.40'), [
      {
        name: 'nozzle', stream_url: 'http://192.168.1.40/webcam/?action=stream', snapshot_url: 'http://192.168.1.40/webcam/?action=snapshot',
        rotation: 90, flip_horizontal: true, flip_vertical: false, enabled: true,
      },
      // WebRTC is no MJPEG stream: only its snapshot is used; 127.0.0.1 is the printer's own machine.
      { name: 'bed', stream_url: null, snapshot_url: 'http://192.168.1.40:8081/snapshot', rotation: 0, flip_horizontal: false, flip_vertical: false, enabled: false },
    ]);
  });

  it("reads OctoPrint's webcam settings (1.9: webcam.webcams with compat) and the older single webcam", () => {
    // GET /api/settings → webcam.webcams: Webcam.dict() of octoprint/schema/webcam plus the provider.
    const settings = {
      webcam: {
        webcamEnabled: true,
        webcams: [
          {
            name: 'classic', displayName: 'Classic Webcam', canSnapshot: true, snapshotDisplay: 'http://127.0.0.1:8080/?action=snapshot',
            flipH: false, flipV: true, rotate90: true, extras: {}, provider: 'classicwebcam',
            compat: { stream: '/webcam/?action=stream', snapshot: 'http://127.0.0.1:8080/?action=snapshot', streamTimeout: 5, streamRatio: '16:9', cacheBuster: false, snapshotTimeout: 5, snapshotSslValidation: true },
          },
          { name: 'nocompat', displayName: 'Plugin cam', compat: null },
        ],
      },
    };
    assert.deepEqual(octoprintWebcams(settings, 'http://192.168.1.41:5000', '192.168.1.41'), [
      {
        name: 'Classic Webcam', stream_url: 'http://192.168.1.41:5000/webcam/?action=stream', snapshot_url: 'http://192.168.1.41:8080/?action=snapshot',
        rotation: 270, flip_horizontal: false, flip_vertical: true, enabled: true,
      },
    ]);
    const older = { webcam: { webcamEnabled: false, streamUrl: 'http://cam.lan/stream', snapshotUrl: null, flipH: true } };
    assert.deepEqual(octoprintWebcams(older, 'http://op.lan', 'op.lan'), [
      { name: 'Webcam', stream_url: 'http://cam.lan/stream', snapshot_url: null, rotation: 0, flip_horizontal: true, flip_vertical: false, enabled: false },
    ]);
  });

  it('completes and checks single addresses', () => {
    assert.equal(resolveWebcamUrl('/cam/stream', 'http://10.0.0.5:5000/octo', '10.0.0.5'), 'http://10.0.0.5:5000/cam/stream');
    assert.equal(resolveWebcamUrl('rtsp://10.0.0.5/live', 'http://10.0.0.5/', '10.0.0.5'), null);
    assert.equal(resolveWebcamUrl('', 'http://10.0.0.5/', '10.0.0.5'), null);
    assert.equal(resolveWebcamUrl('http://localhost:8080/?action=stream', 'http://10.0.0.5/', '10.0.0.5'), 'http://10.0.0.5:8080/?action=stream');
  });
});
