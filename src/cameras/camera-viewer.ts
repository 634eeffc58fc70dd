// Serves one live viewer: writes the feed's frames as multipart/x-mixed-replace and skips frames while the client's
// socket still holds the last one, so a slow viewer gets fewer frames and never more buffered memory.
import type { ServerResponse } from 'node:http';
import type { CameraFeed } from './camera-feed.js';

const BOUNDARY = 'printfarmframe';
export const VIEWER_CONTENT_TYPE = `multipart/x-mixed-replace; boundary=${BOUNDARY}`;

const partHead = (length: number): Buffer => Buffer.from(`--${BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${length}\r\n\r\n`);
const CRLF = Buffer.from('\r\n');

/** Streams `feed` to `res` until the client goes; resolves then (the feed's upstream closes when no viewer is left). */
export function serveViewer(res: ServerResponse, feed: CameraFeed, headers: Record<string, string>): Promise<void> {
  res.writeHead(200, { ...headers, 'Content-Type': VIEWER_CONTENT_TYPE, 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
  let busy = false;
  const unsubscribe = feed.subscribe((jpeg) => {
    if (busy || res.destroyed) return false;
    // One write per frame: the socket's buffer then holds at most this frame beyond what the kernel took.
    const flushed = res.write(Buffer.concat([partHead(jpeg.length), jpeg, CRLF]));
    if (!flushed) {
      busy = true;
      res.once('drain', () => {
        busy = false;
      });
    }
    return true;
  }, () => res.end());
  return new Promise((resolve) => {
    const gone = (): void => {
      unsubscribe();
      resolve();
    };
    if (res.destroyed) return gone();
    res.once('close', gone);
  });
}
