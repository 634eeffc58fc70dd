// MeatPack on one serial link: turned on after the handshake when the firmware offers it, watched, and dropped at any doubt.
import { LineEncoder } from '../protocol/line-encoder.js';
import { meatpackCommand, MeatPackCommand, parseMeatPackReport, type MeatPackReport } from '../protocol/meatpack.js';
import type { FirmwareInfo, ProtocolStats } from '../protocol/protocol-types.js';
import type { SessionContext } from './session-context.js';

/** How long the firmware may take to answer a MeatPack command with its `[MP]` report. */
const REPORT_WAIT_MS = 2000;
/** Lines written again with no line acknowledged between them: packing makes it worse or is the cause. */
const RESEND_STREAK_LIMIT = 6;

export class SessionMeatPack {
  /** The link's last stage before the wire; plain until the firmware confirmed packing. */
  readonly encoder = new LineEncoder();
  private waiter: ((r: MeatPackReport | null) => void) | null = null;
  /** Lines written again so far (not resend requests: one damaged line draws a request per line in flight). */
  private resent = 0;
  private timeouts = 0;
  private ackedAtLastResend = -1;
  private streak = 0;

  constructor(private readonly ctx: SessionContext) {}

  get packing(): boolean {
    return this.encoder.encoding === 'meatpack';
  }

  /** A new protocol on a fresh or restarted board: MeatPack is off there (a reset turns it off), so lines go as text. */
  reset(): void {
    this.encoder.reset();
    this.waiter?.(null);
    this.waiter = null;
  }

  /**
   * After identification: when the profile wants MeatPack and M115 says `Cap:MEATPACK:1`, ask for the state (a firmware
   * that does not answer `[MP]` stays on text), then enable packing and no-spaces and pack once the report says both
   * are on. Nothing else is on the wire meanwhile: the handshake is over and keep-alive has not started.
   */
  async negotiate(info: FirmwareInfo, write: (bytes: Buffer) => void): Promise<void> {
    if (!this.ctx.profile().meatpack || info.capabilities['MEATPACK'] !== true) return;
    const first = await this.ask([MeatPackCommand.queryConfig], write, () => true);
    if (first === null) {
      this.ctx.emitConsole('received', 'info', 'MeatPack: no [MP] answer to the query, streaming as text');
      return;
    }
    const on = await this.ask([MeatPackCommand.enablePacking, MeatPackCommand.enableNoSpaces], write, (r) => r.active && r.noSpaces);
    if (on === null) {
      // The firmware may have turned packing on without our seeing it: make sure it reads text.
      write(Buffer.concat([meatpackCommand(MeatPackCommand.disablePacking), meatpackCommand(MeatPackCommand.disableNoSpaces)]));
      this.ctx.emitConsole('received', 'info', 'MeatPack: packing was not confirmed, streaming as text');
      return;
    }
    this.encoder.startPacking(true);
    this.ctx.protocol()?.setWireLength((framed) => this.encoder.wireLength(framed));
    this.ctx.emitConsole('received', 'info', 'MeatPack: packing on, spaces dropped');
  }

  /** A received line: `[MP]` reports are taken here (true) and never reach the protocol. */
  report(line: string): boolean {
    const r = parseMeatPackReport(line);
    if (r === null) return false;
    if (this.waiter) this.waiter(r);
    else if (this.encoder.takeOwnReport()) return true;
    else if (this.packing && !r.active) this.fallBack('the printer reports packing off');
    return true;
  }

  /**
   * Called after each pump with the protocol's counters: an ok-timeout or a run of replayed lines with no progress
   * while packing ends packing on this link (the replays and everything after go as text).
   */
  watch(stats: ProtocolStats): void {
    if (stats.timeouts !== this.timeouts) {
      this.timeouts = stats.timeouts;
      if (this.packing) this.fallBack('an ok-timeout while packing');
    }
    if (stats.linesResent !== this.resent) {
      const fresh = stats.linesResent - this.resent;
      this.resent = stats.linesResent;
      this.streak = stats.linesAcked === this.ackedAtLastResend ? this.streak + fresh : fresh;
      this.ackedAtLastResend = stats.linesAcked;
      if (this.packing && this.streak >= RESEND_STREAK_LIMIT) this.fallBack(`${this.streak} lines written again without progress while packing`);
    }
  }

  /** New counters (a new protocol starts from zero). */
  restartWatch(): void {
    this.resent = 0;
    this.timeouts = 0;
    this.ackedAtLastResend = -1;
    this.streak = 0;
  }

  private fallBack(why: string): void {
    this.encoder.stopPacking();
    this.ctx.protocol()?.setWireLength(null);
    this.ctx.emitConsole('received', 'info', `MeatPack: ${why}; streaming as text from here`);
  }

  /** Writes the commands and waits for a report that `done` accepts; null when none came in time. */
  private ask(cmds: Array<(typeof MeatPackCommand)[keyof typeof MeatPackCommand]>, write: (b: Buffer) => void, done: (r: MeatPackReport) => boolean): Promise<MeatPackReport | null> {
    return new Promise((resolve) => {
      const finish = (r: MeatPackReport | null): void => {
        this.waiter = null;
        this.ctx.timer.unschedule('meatpack');
        resolve(r);
      };
      this.waiter = (r) => {
        if (r === null || done(r)) finish(r);
      };
      this.ctx.timer.schedule('meatpack', REPORT_WAIT_MS, () => finish(null));
      write(Buffer.concat(cmds.map((c) => meatpackCommand(c))));
    });
  }
}
