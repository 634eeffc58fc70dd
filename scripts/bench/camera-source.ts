// Child process of bench:cameras: one ffmpeg encodes its test pattern (640x480, 10 fps) as MJPEG, and this process
// serves those frames to any number of clients at /cam/<n> as multipart/x-mixed-replace: N cameras from one encoder,
// so the cameras' cost is ffmpeg's and this child's, never the measured host's. Prints "listening <port>".
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundaryOf, MjpegParser } from '../../src/cameras/mjpeg-parser.js';

const fps = Number(process.argv[2] ?? 10);
const size = process.argv[3] ?? '640x480';
const ffmpeg = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-re', '-f', 'lavfi', '-i', `testsrc=size=${size}:rate=${fps}`, '-q:v', '5', '-f', 'mpjpeg', 'pipe:1'], { stdio: ['ignore', 'pipe', 'inherit'] });
process.on('exit', () => ffmpeg.kill('SIGKILL'));
process.on('SIGTERM', () => process.exit(0));

const clients = new Set<http.ServerResponse>();
let parser: MjpegParser | null = null;
ffmpeg.stdout.on('data', (chunk: Buffer) => {
  // ffmpeg's mpjpeg muxer writes "--ffmpeg" boundaries.
  parser ??= new MjpegParser(boundaryOf('multipart/x-mixed-replace;boundary=ffmpeg')!, 8 << 20);
  for (const frame of parser.push(chunk)) {
    const part = Buffer.concat([Buffer.from(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${frame.length}\r\n\r\n`), frame, Buffer.from('\r\n')]);
    for (const res of clients) if (res.writableLength < 4 * frame.length) res.write(part);
  }
});

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'multipart/x-mixed-replace; boundary=frame', 'Cache-Control': 'no-store' });
  clients.add(res);
  res.on('close', () => clients.delete(res));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
