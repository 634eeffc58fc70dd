// Fetches one JPEG from a snapshot URL (or the first frame of a stream URL given there), bounded in size and time.
import { CameraFault, asFault } from './camera-fault.js';
import { mediaType, notACamera, openCameraUrl, type CameraHttpOptions } from './camera-http.js';
import { boundaryOf, MjpegParser } from './mjpeg-parser.js';

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The picture at `url`, or a CameraFault saying why there is none. */
export async function fetchSnapshot(url: string, credentials: string | null, http: CameraHttpOptions, maxBytes: number, timeoutMs: number): Promise<Buffer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  let response: Awaited<ReturnType<typeof openCameraUrl>> | undefined;
  try {
    response = await openCameraUrl(url, credentials, http, abort.signal);
    const { res } = response;
    const type = mediaType(res);
    const host = response.url.host;
    const boundary = type === 'multipart/x-mixed-replace' ? boundaryOf(String(res.headers['content-type'])) : null;
    if (!boundary && !type.startsWith('image/')) throw notACamera(type, host);
    const declared = Number(res.headers['content-length'] ?? NaN);
    if (!boundary && Number.isFinite(declared) && declared > maxBytes) throw new CameraFault('frame_too_large', `a picture of ${mb(declared)}, over the ${mb(maxBytes)} limit`);
    const parser = boundary ? new MjpegParser(boundary, maxBytes) : null;
    return await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const fail = (err: unknown): void => {
        res.destroy();
        reject(asFault(err));
      };
      abort.signal.addEventListener('abort', () => fail(new CameraFault('timeout', `no picture from ${host} within ${timeoutMs / 1000} s`)), { once: true });
      res.on('data', (chunk: Buffer) => {
        if (parser) {
          try {
            const [frame] = parser.push(chunk);
            if (frame) {
              res.destroy();
              resolve(frame);
            }
          } catch (err) {
            fail(err);
          }
          return;
        }
        size += chunk.length;
        if (size > maxBytes) return fail(new CameraFault('frame_too_large', `a picture over the ${mb(maxBytes)} limit`));
        chunks.push(chunk);
      });
      res.on('end', () => {
        if (parser) return fail(new CameraFault('closed', `${host} closed the stream before a whole frame`));
        const jpeg = Buffer.concat(chunks);
        if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return fail(new CameraFault('garbage', `${host} answered ${type} that is not a JPEG picture`));
        resolve(jpeg);
      });
      res.on('error', (err) => fail(new CameraFault('closed', `${host} closed the connection mid-picture (${err.message})`)));
      res.on('aborted', () => fail(new CameraFault('closed', `${host} closed the connection mid-picture`)));
    });
  } catch (err) {
    if (abort.signal.aborted && !(err instanceof CameraFault)) throw new CameraFault('timeout', `no picture within ${timeoutMs / 1000} s`);
    throw asFault(err);
  } finally {
    clearTimeout(timer);
    response?.close();
  }
}
