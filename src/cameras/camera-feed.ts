// One camera's single upstream MJPEG connection, fanned out to its viewers: opened by the first viewer, closed soon after
// the last leaves, reconnected with back-off after a fault, with its state and counters for the card, API and /metrics.
import { CameraFault, asFault, type CameraFaultCode } from './camera-fault.js';
import { mediaType, notACamera, openCameraUrl, type CameraHttpOptions } from './camera-http.js';
import { boundaryOf, MjpegParser } from './mjpeg-parser.js';

export interface FeedTuning {
  /** No viewer for this long: the upstream connection is closed. */
  idleCloseMs: number;
  /** An open stream with no frame for this long is called stalled and reopened. */
  stallMs: number;
  /** The largest frame accepted; a larger one is a fault, never buffered. */
  maxFrameBytes: number;
  /** Waits between reconnect attempts while viewers remain: doubles from the first to the last. */
  retryMs: { initial: number; max: number };
}

export const DEFAULT_FEED_TUNING: FeedTuning = {
  idleCloseMs: 3000,
  stallMs: 10_000,
  maxFrameBytes: 8 * 1024 * 1024,
  retryMs: { initial: 1000, max: 30_000 },
};

export type FeedStatus = 'idle' | 'connecting' | 'live' | 'error';

export interface FeedState {
  status: FeedStatus;
  error: { code: CameraFaultCode; message: string } | null;
  viewers: number;
  /** When the last frame arrived (epoch ms), or null. */
  last_frame_at: number | null;
}

export interface FeedCounters {
  framesIn: number;
  framesOut: number;
  dropped: number;
  /** Upstream connections opened again after a fault. */
  reconnects: number;
}

/** A viewer takes a frame, or says it is still busy with the previous one (then it is counted as dropped for it). */
export type Viewer = (frame: Buffer) => boolean;

export interface FeedSource {
  url: string;
  credentials: string | null;
}

export class CameraFeed {
  private readonly viewers = new Set<Viewer>();
  /** What each viewer runs when the feed closes for good, so its response ends instead of hanging. */
  private readonly enders = new Map<Viewer, () => void>();
  /** Snapshot waiters: they keep the stream open like viewers but are not counted as viewers nor frames out. */
  private readonly waiters = new Set<Viewer>();
  private status: FeedStatus = 'idle';
  private error: CameraFault | null = null;
  private frame: { jpeg: Buffer; at: number } | null = null;
  private abort: AbortController | null = null;
  private idleTimer: NodeJS.Timeout | undefined;
  private stallTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay: number;
  private closed = false;
  readonly counters: FeedCounters = { framesIn: 0, framesOut: 0, dropped: 0, reconnects: 0 };
  /** The most bytes the parser held at once (tests check memory stays bounded). */
  peakBuffered = 0;

  constructor(
    private readonly source: FeedSource,
    private readonly http: CameraHttpOptions,
    private readonly tuning: FeedTuning,
    private readonly now: () => number = Date.now,
  ) {
    this.retryDelay = tuning.retryMs.initial;
  }

  state(): FeedState {
    return {
      status: this.status,
      error: this.error ? { code: this.error.code, message: this.error.message } : null,
      viewers: this.viewers.size - this.waiters.size,
      last_frame_at: this.frame?.at ?? null,
    };
  }

  /** The last frame if it is at most `maxAgeMs` old. */
  latest(maxAgeMs: number): Buffer | null {
    return this.frame && this.status === 'live' && this.now() - this.frame.at <= maxAgeMs ? this.frame.jpeg : null;
  }

  /** Adds a viewer (opening the upstream if it is the first); returns the function that removes it. */
  subscribe(viewer: Viewer, onClose?: () => void): () => void {
    if (this.closed) throw new Error('camera feed closed');
    this.viewers.add(viewer);
    if (onClose) this.enders.set(viewer, onClose);
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.status === 'idle' || (this.status === 'error' && !this.retryTimer && !this.abort)) this.connect();
    return () => {
      this.enders.delete(viewer);
      this.waiters.delete(viewer);
      if (!this.viewers.delete(viewer)) return;
      if (this.viewers.size === 0) this.scheduleIdleClose();
    };
  }

  /** The next frame (opening the stream for it), or the fault that prevented one within `timeoutMs`. */
  nextFrame(timeoutMs: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const done = (err: CameraFault | null, frame?: Buffer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.faultWaiters.delete(onFault);
        unsubscribe();
        if (err) reject(err);
        else resolve(frame as Buffer);
      };
      const onFault = (err: CameraFault): void => done(err);
      const timer = setTimeout(() => done(this.error ?? new CameraFault('timeout', `no frame within ${timeoutMs / 1000} s`)), timeoutMs);
      this.faultWaiters.add(onFault);
      const waiter: Viewer = (frame) => {
        done(null, frame);
        return true;
      };
      this.waiters.add(waiter);
      const unsubscribe = this.subscribe(waiter);
    });
  }

  private readonly faultWaiters = new Set<(err: CameraFault) => void>();

  /** Stops everything for good (camera removed, server stopping). */
  close(): void {
    this.closed = true;
    this.viewers.clear();
    this.waiters.clear();
    const enders = [...this.enders.values()];
    this.enders.clear();
    for (const end of enders) end();
    clearTimeout(this.idleTimer);
    clearTimeout(this.retryTimer);
    this.stopUpstream();
    this.status = 'idle';
  }

  private scheduleIdleClose(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.viewers.size > 0) return;
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
      this.stopUpstream();
      // The fault stays visible until a viewer tries again; a clean close is idle.
      if (this.status !== 'error') this.status = 'idle';
    }, this.tuning.idleCloseMs);
    this.idleTimer.unref?.();
  }

  private stopUpstream(): void {
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    this.abort?.abort();
    this.abort = null;
  }

  private armStall(): void {
    clearTimeout(this.stallTimer);
    this.stallTimer = setTimeout(() => this.fail(new CameraFault('stalled', `no frame for ${this.tuning.stallMs / 1000} s`)), this.tuning.stallMs);
  }

  private fail(fault: CameraFault): void {
    if (this.closed) return;
    this.stopUpstream();
    this.status = 'error';
    this.error = fault;
    for (const waiter of [...this.faultWaiters]) waiter(fault);
    if (this.viewers.size === 0) return;
    // Viewers remain: try again later, waiting longer each time, without ever holding more than one connection.
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.viewers.size === 0 || this.closed) return;
      this.counters.reconnects++;
      this.connect();
    }, this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, this.tuning.retryMs.max);
  }

  private connect(): void {
    if (this.abort) return;
    const abort = new AbortController();
    this.abort = abort;
    if (this.status !== 'error') this.status = 'connecting';
    this.armStall();
    openCameraUrl(this.source.url, this.source.credentials, this.http, abort.signal).then(
      ({ res, url }) => {
        if (abort.signal.aborted) return res.destroy();
        const type = mediaType(res);
        const boundary = boundaryOf(String(res.headers['content-type'] ?? ''));
        if (type !== 'multipart/x-mixed-replace' || !boundary) {
          res.destroy();
          return this.fail(type.startsWith('multipart/') ? new CameraFault('garbage', `a ${type} stream without a boundary`) : notACamera(type, url.host));
        }
        const parser = new MjpegParser(boundary, this.tuning.maxFrameBytes);
        abort.signal.addEventListener('abort', () => res.destroy(), { once: true });
        res.on('data', (chunk: Buffer) => {
          if (abort.signal.aborted) return;
          let frames: Buffer[];
          try {
            frames = parser.push(chunk);
          } catch (err) {
            this.peakBuffered = Math.max(this.peakBuffered, parser.peakBuffered);
            return this.fail(asFault(err));
          }
          this.peakBuffered = Math.max(this.peakBuffered, parser.peakBuffered);
          for (const frame of frames) this.deliver(frame);
        });
        const ended = (): void => {
          if (!abort.signal.aborted) this.fail(new CameraFault('closed', `${url.host} closed the stream`));
        };
        res.on('end', ended);
        res.on('error', ended);
        res.on('close', ended);
      },
      (err) => {
        if (!abort.signal.aborted) this.fail(asFault(err));
      },
    );
  }

  private deliver(jpeg: Buffer): void {
    this.counters.framesIn++;
    this.frame = { jpeg, at: this.now() };
    this.status = 'live';
    this.error = null;
    this.retryDelay = this.tuning.retryMs.initial;
    this.armStall();
    for (const viewer of [...this.viewers]) {
      // Asked before the call: a waiter leaves as soon as it has its frame.
      const counted = !this.waiters.has(viewer);
      const taken = viewer(jpeg);
      if (!counted) continue;
      if (taken) this.counters.framesOut++;
      else this.counters.dropped++;
    }
  }
}
