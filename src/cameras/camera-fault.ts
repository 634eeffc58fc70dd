// Why a camera gives no picture: one code per failure the owner can act on, with a message in words for the card and the API.

export type CameraFaultCode =
  /** The address may never be reached (link-local, metadata, ...), checked on every hop and resolved address. */
  | 'forbidden'
  /** No connection: refused, unknown host, unreachable network. */
  | 'unreachable'
  /** Connected, but no answer or no frame in time. */
  | 'timeout'
  /** 401/403: the URL needs (other) credentials. */
  | 'unauthorized'
  /** Any other non-2xx status, or too many redirects. */
  | 'http_error'
  /** It answered, but with something else than an image or an MJPEG stream (a web page, JSON). */
  | 'not_a_camera'
  /** The stream's bytes are not multipart JPEG frames. */
  | 'garbage'
  /** One frame larger than the limit: refused rather than buffered. */
  | 'frame_too_large'
  /** The stream was open but sent no frame for too long. */
  | 'stalled'
  /** The camera closed the stream (possibly mid-frame). */
  | 'closed';

export class CameraFault extends Error {
  constructor(
    readonly code: CameraFaultCode,
    message: string,
  ) {
    super(message);
    this.name = 'CameraFault';
  }
}

/** Any error as a fault: a fault stays itself, anything else (a bug, an unexpected error) becomes 'unreachable' with its text. */
export const asFault = (err: unknown): CameraFault =>
  err instanceof CameraFault ? err : new CameraFault('unreachable', err instanceof Error ? err.message : String(err));
