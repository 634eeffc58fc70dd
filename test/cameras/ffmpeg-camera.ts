// A real camera no one here wrote: ffmpeg (Debian) serving its test pattern over HTTP as an MJPEG stream or a JPEG
// snapshot. ffmpeg's HTTP server takes one client and then exits, which also proves a farm opens one connection only.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { freeTcpPort } from '../helpers/free-tcp-port.js';

/** Why ffmpeg tests skip here, or false when ffmpeg is installed. */
export const ffmpegMissing = (): string | false => (existsSync('/usr/bin/ffmpeg') ? false : 'ffmpeg is not installed (apt-get install ffmpeg)');

export interface FfmpegCamera {
  url: string;
  /** Resolves when ffmpeg has exited (after its one client left, or when stopped). */
  exited: Promise<number | null>;
  stop(): void;
}

/** Whether something listens on 127.0.0.1:port, read from /proc (a probe connection would be taken as ffmpeg's one client). */
function isListening(port: number): boolean {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const table = readFileSync('/proc/net/tcp', 'utf8');
  // local_address 0100007F:PORT, state 0A (LISTEN)
  return table.split('\n').some((line) => {
    const cols = line.trim().split(/\s+/);
    return cols[1] === `0100007F:${hex}` && cols[3] === '0A';
  });
}

async function listening(port: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!isListening(port)) {
    if (Date.now() > until) throw new Error(`ffmpeg did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function start(args: string[], port: number, path: string): FfmpegCamera {
  const child: ChildProcess = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', ...args, '-listen', '1', `http://127.0.0.1:${port}${path}`], { stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { url: `http://127.0.0.1:${port}${path}`, exited, stop: () => void child.kill('SIGKILL') };
}

/** The test pattern at `fps` frames a second as multipart/x-mixed-replace, for one client. */
export async function ffmpegStream(options: { fps?: number; size?: string; quality?: number } = {}): Promise<FfmpegCamera> {
  const port = await freeTcpPort();
  const cam = start(
    ['-re', '-f', 'lavfi', '-i', `testsrc=size=${options.size ?? '640x480'}:rate=${options.fps ?? 10}`, '-q:v', String(options.quality ?? 5), '-f', 'mpjpeg', '-content_type', 'multipart/x-mixed-replace;boundary=ffmpeg'],
    port,
    '/stream.mjpg',
  );
  await listening(port);
  return cam;
}

/** One JPEG of the test pattern, served once. */
export async function ffmpegSnapshot(): Promise<FfmpegCamera> {
  const port = await freeTcpPort();
  const cam = start(['-f', 'lavfi', '-i', 'testsrc=size=640x480:rate=1', '-frames:v', '1', '-f', 'mjpeg', '-content_type', 'image/jpeg'], port, '/snapshot.jpg');
  await listening(port);
  return cam;
}

/** One JPEG of the test pattern made by ffmpeg, for servers that replay it. */
export function ffmpegJpeg(): Buffer {
  const r = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=1', '-frames:v', '1', '-f', 'mjpeg', 'pipe:1'], { maxBuffer: 10 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`ffmpeg failed: ${r.stderr.toString()}`);
  return r.stdout;
}
