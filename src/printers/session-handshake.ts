// Identifying the printer on a fresh link: boot noise drained, M110 N0 + M115, retries, then the next baud rate.
import { meatpackCommand, MeatPackCommand } from '../protocol/meatpack.js';
import type { FirmwareInfo } from '../protocol/protocol-types.js';
import type { Transport } from '../transport/transport.js';
import type { CommandCallback, SessionContext } from './session-context.js';

export interface HandshakeOptions {
  /** The handshake starts after this much silence... */
  drainQuietMs: number;
  /** ...or after this long at most. */
  drainMaxMs: number;
  /** How long one identification try waits for the M115 answer. */
  timeoutMs: number;
  /** Tries per baud rate before the next rate or giving up. */
  attempts: number;
}

/** What the handshake needs beyond the shared context: a fresh protocol per try and the pending-reply table. */
export interface HandshakeContext extends SessionContext {
  newProtocol(): void;
  expectReply(commandId: number, cb: CommandCallback): void;
  forgetReply(commandId: number): void;
}

/**
 * Parses `profile=` out of a serial or tcp URL so the transport never sees a parameter it does not know. In a sim://
 * URL `profile=` picks the simulated firmware: it stays for the simulator and the host still detects via M115.
 */
export function splitProfileParam(url: string): { transportUrl: string; profile: string | undefined } {
  const q = url.indexOf('?');
  if (q === -1 || /^sim:/i.test(url.trim())) return { transportUrl: url, profile: undefined };
  const params = new URLSearchParams(url.slice(q + 1));
  const profile = params.get('profile') ?? undefined;
  if (profile === undefined) return { transportUrl: url, profile: undefined };
  params.delete('profile');
  const rest = params.toString();
  return { transportUrl: url.slice(0, q) + (rest ? `?${rest}` : ''), profile };
}

/**
 * Written before every identification retry: a board that a host left packing MeatPack (that host killed mid-print;
 * only a reset turns packing off) reads our text as packed bytes and never answers M115. These bytes switch packing
 * and no-spaces off; a firmware without MeatPack sees one unknown line and ignores it.
 */
const TEXT_AGAIN = Buffer.concat([meatpackCommand(MeatPackCommand.disablePacking), meatpackCommand(MeatPackCommand.disableNoSpaces), Buffer.from('\n')]);

/** Baud rates to try on this link: several only for a serial URL that named none (the transport switches in place). */
function baudsToTry(t: Transport): Array<number | undefined> {
  const c = t.baudCandidates;
  return c && c.length > 1 && t.setBaudRate ? [...c] : [undefined];
}

export class SessionHandshake {
  /** True while boot noise is thrown away (lines are not fed to the protocol). */
  draining = false;
  private lastRxAt = 0;
  private abortRun: ((err: Error) => void) | null = null;
  private infoSink: ((info: FirmwareInfo) => void) | null = null;

  constructor(
    private readonly ctx: HandshakeContext,
    private readonly opts: HandshakeOptions,
  ) {}

  /** A line arrived while draining: the silence starts again. */
  noise(): void {
    this.lastRxAt = this.ctx.clock.monotonic();
  }

  /** The protocol parsed an M115 answer. */
  firmwareInfo(info: FirmwareInfo): void {
    this.infoSink?.(info);
  }

  /** The link went away or was dropped: a running handshake fails with `err`. */
  abort(err: Error): void {
    this.draining = false;
    this.abortRun?.(err);
  }

  /**
   * Identifies the printer on `transport`, then runs `then(info)` (profile, keep-alive) under the same abort.
   * `current()` turns false when the link this handshake runs on was replaced.
   */
  async run(transport: Transport, current: () => boolean, then: (info: FirmwareInfo) => Promise<void>): Promise<FirmwareInfo> {
    const aborted = new Promise<never>((_, reject) => (this.abortRun = reject));
    aborted.catch(() => undefined);
    const guard = <T>(p: Promise<T>): Promise<T> => Promise.race([p, aborted]);
    try {
      const bauds = baudsToTry(transport);
      let info: FirmwareInfo | null = null;
      for (let b = 0; b < bauds.length && !info; b++) {
        const baud = bauds[b];
        if (b > 0 && baud !== undefined && transport.setBaudRate) await guard(transport.setBaudRate(baud));
        for (let i = 0; i < this.opts.attempts && !info; i++) {
          if (i > 0) transport.write(TEXT_AGAIN);
          await guard(this.drainBootNoise());
          info = await guard(this.identify());
        }
      }
      if (!current()) throw new Error('link lost during the handshake');
      if (!info) {
        const rates = bauds[0] === undefined ? '' : ` at ${bauds.join(' or ')} baud`;
        throw new Error(`no answer from the printer${rates} (M115 got no reply)`);
      }
      await guard(then(info));
      if (!current()) throw new Error('link lost during the handshake');
      return info;
    } finally {
      this.abortRun = null;
      this.ctx.timer.unschedule('handshake');
    }
  }

  /** Waits for silence (or a cap) while lines are thrown away: garbage, `start`, echo: banners. */
  private drainBootNoise(): Promise<void> {
    const { clock, timer } = this.ctx;
    this.draining = true;
    const started = clock.monotonic();
    this.lastRxAt = started;
    return new Promise((resolve) => {
      const check = (): void => {
        const now = clock.monotonic();
        const quietAt = this.lastRxAt + this.opts.drainQuietMs;
        const capAt = started + this.opts.drainMaxMs;
        if (now >= quietAt || now >= capAt) {
          this.draining = false;
          resolve();
        } else timer.schedule('handshake', Math.min(quietAt, capAt) - now, check);
      };
      timer.schedule('handshake', this.opts.drainQuietMs, check);
    });
  }

  /** One identification try on a fresh protocol: M110 N0 then M115; null when no answer in time. */
  private identify(): Promise<FirmwareInfo | null> {
    const { ctx } = this;
    ctx.newProtocol();
    const p = ctx.protocol()!;
    let info: FirmwareInfo | null = null;
    this.infoSink = (i) => (info = i);
    return new Promise((resolve) => {
      const done = (result: FirmwareInfo | null): void => {
        this.infoSink = null;
        ctx.timer.unschedule('handshake');
        resolve(result);
      };
      p.resetLineNumbers(ctx.clock.monotonic());
      const id = p.sendCommand('M115', ctx.clock.monotonic());
      ctx.expectReply(id, (reply) => {
        if (reply === null) return done(null);
        done(info ?? { name: 'unknown', fields: {}, capabilities: {} });
      });
      ctx.timer.schedule('handshake', this.opts.timeoutMs, () => {
        ctx.forgetReply(id);
        done(null);
      });
      ctx.flush();
    });
  }
}
