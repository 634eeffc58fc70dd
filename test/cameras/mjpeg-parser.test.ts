// The MJPEG splitter on its own: frames cut by Content-Length or by boundary, any chunking, and bounded refusal of garbage and huge frames.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CameraFault } from '../../src/cameras/camera-fault.js';
import { boundaryOf, MjpegParser } from '../../src/cameras/mjpeg-parser.js';

const jpeg = (n: number, fill = 0x11): Buffer => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(n, fill), Buffer.from([0xff, 0xd9])]);
const part = (frame: Buffer, withLength: boolean, b = 'frame'): Buffer =>
  Buffer.concat([Buffer.from(`--${b}\r\nContent-Type: image/jpeg\r\n${withLength ? `Content-Length: ${frame.length}\r\n` : ''}\r\n`), frame, Buffer.from('\r\n')]);

const faultOf = (fn: () => unknown): CameraFault => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof CameraFault, String(err));
    return err;
  }
  assert.fail('no fault');
};

describe('MJPEG parser', () => {
  it('reads the boundary of a Content-Type, with or without quotes and leading dashes', () => {
    assert.equal(boundaryOf('multipart/x-mixed-replace;boundary=ffmpeg'), 'ffmpeg');
    assert.equal(boundaryOf('multipart/x-mixed-replace; boundary="--boundarydonotcross"'), 'boundarydonotcross');
    assert.equal(boundaryOf('multipart/x-mixed-replace'), null);
  });

  for (const withLength of [true, false]) {
    it(`splits frames ${withLength ? 'by Content-Length' : 'at the next boundary'}, however the bytes are chunked`, () => {
      const frames = [jpeg(100, 1), jpeg(3000, 2), jpeg(7, 3)];
      // A frame without Content-Length ends only when the next boundary is seen: a last boundary closes the stream.
      const wire = Buffer.concat([...frames.map((f) => part(f, withLength)), Buffer.from('--frame\r\n')]);
      for (const size of [1, 7, 64, wire.length]) {
        const parser = new MjpegParser('frame', 1 << 20);
        const out: Buffer[] = [];
        for (let i = 0; i < wire.length; i += size) out.push(...parser.push(wire.subarray(i, i + size)));
        assert.deepEqual(out, frames, `chunks of ${size}`);
      }
    });
  }

  it('keeps bytes that look like a boundary inside a frame when Content-Length says how long it is', () => {
    const tricky = Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.from('\r\n--frame\r\n'), Buffer.from([0xff, 0xd9])]);
    const parser = new MjpegParser('frame', 1 << 20);
    assert.deepEqual(parser.push(Buffer.concat([part(tricky, true), part(jpeg(5), true)])), [tricky, jpeg(5)]);
  });

  it('calls noise without a boundary garbage after 16 KB, not after buffering more', () => {
    const parser = new MjpegParser('frame', 1 << 20);
    const fault = faultOf(() => parser.push(Buffer.alloc(20_000, 0x41)));
    assert.equal(fault.code, 'garbage');
  });

  it('calls a part that is not a JPEG garbage', () => {
    const parser = new MjpegParser('frame', 1 << 20);
    assert.equal(faultOf(() => parser.push(part(Buffer.from('hello world, not a picture'), true))).code, 'garbage');
    const typed = new MjpegParser('frame', 1 << 20);
    const html = Buffer.from('--frame\r\nContent-Type: text/html\r\n\r\n<html>');
    assert.equal(faultOf(() => typed.push(html)).code, 'garbage');
  });

  it('refuses a frame whose Content-Length is over the limit before reading it', () => {
    const parser = new MjpegParser('frame', 1024 * 1024);
    const fault = faultOf(() => parser.push(Buffer.from('--frame\r\nContent-Type: image/jpeg\r\nContent-Length: 20971520\r\n\r\n')));
    assert.equal(fault.code, 'frame_too_large');
    assert.match(fault.message, /20\.0 MB, over the 1\.0 MB limit/);
  });

  it('refuses a frame without Content-Length once it outgrows the limit, holding no more than the limit', () => {
    const limit = 256 * 1024;
    const parser = new MjpegParser('frame', limit);
    parser.push(Buffer.from('--frame\r\nContent-Type: image/jpeg\r\n\r\n'));
    const chunk = Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(16 * 1024 - 2, 0x22)]);
    let fault: CameraFault | undefined;
    for (let i = 0; i < 20 * 64 && !fault; i++) {
      try {
        parser.push(i === 0 ? chunk : Buffer.alloc(16 * 1024, 0x22));
      } catch (err) {
        fault = err as CameraFault;
      }
    }
    assert.equal(fault?.code, 'frame_too_large');
    assert.ok(parser.peakBuffered <= limit + 32 * 1024, `held ${parser.peakBuffered} bytes`);
  });
});
