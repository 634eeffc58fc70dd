// Keeping temperatures fresh on a live link: the firmware's autoreport when it has one, else an M105 poll on a timer.
import type { FirmwareInfo } from '../protocol/protocol-types.js';
import type { SessionContext } from './session-context.js';

export class SessionKeepAlive {
  private autoreport = false;
  /** An M105 poll is on the wire: the next waits for its answer, so a slow printer is never flooded. */
  private outstanding = false;

  constructor(
    private readonly ctx: SessionContext,
    private readonly pollMs: number,
  ) {}

  /** A new protocol (a new link or handshake try): nothing of ours is in flight on it. */
  reset(): void {
    this.outstanding = false;
  }

  /** After identification: switch autoreport on when the firmware offers it, otherwise start polling. */
  async start(info: FirmwareInfo): Promise<void> {
    const command = this.ctx.profile().autoreportTemperature;
    this.autoreport = info.capabilities['AUTOREPORT_TEMP'] === true && command !== null;
    if (this.autoreport) await this.ctx.command(command!);
    else this.ctx.timer.schedule('poll', 0, () => this.poll());
  }

  stop(): void {
    this.ctx.timer.unschedule('poll');
  }

  private poll(): void {
    const status = this.ctx.status();
    if (this.autoreport || !this.ctx.protocol() || status === 'offline' || status === 'connecting') return;
    if (!this.outstanding) {
      this.outstanding = true;
      this.ctx.send('M105', () => (this.outstanding = false));
    }
    this.ctx.timer.schedule('poll', this.pollMs, () => this.poll());
  }
}
