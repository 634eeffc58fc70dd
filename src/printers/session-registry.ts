// Holds the live printer sessions by printer id, and closes them all within a bounded time at shutdown.
import { AppError, notFound } from '../errors.js';
import type { PrinterLink } from './printer-link.js';

/** A job that ended on a printer but whose end is not stored yet (a full disk holds the write). */
export interface HeldJob {
  id: string;
  progress: number;
}

export class SessionRegistry {
  private readonly sessions = new Map<string, PrinterLink>();
  private readonly held = new Map<string, HeldJob>();

  /**
   * The printer keeps showing `job` (status printing) until releaseJob(): its session already went idle, but our
   * records must not call it free before the job's end is written.
   */
  holdJob(printerId: string, job: HeldJob): void {
    this.held.set(printerId, job);
  }

  releaseJob(printerId: string, jobId: string): void {
    if (this.held.get(printerId)?.id === jobId) this.held.delete(printerId);
  }

  heldJob(printerId: string): HeldJob | undefined {
    return this.held.get(printerId);
  }

  /** Adds a session; a second session for one printer would fight over the port, so it is refused. */
  add(session: PrinterLink): void {
    if (this.sessions.has(session.printerId)) {
      throw new AppError(409, 'invalid_state', `printer ${session.printerId} already has a session`);
    }
    this.sessions.set(session.printerId, session);
  }

  get(printerId: string): PrinterLink | undefined {
    return this.sessions.get(printerId);
  }

  /** Like get(), as a 404 for the API layer. */
  require(printerId: string): PrinterLink {
    const s = this.sessions.get(printerId);
    if (!s) throw notFound(`printer session ${printerId}`);
    return s;
  }

  has(printerId: string): boolean {
    return this.sessions.has(printerId);
  }

  list(): PrinterLink[] {
    return [...this.sessions.values()];
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Removes the session and closes its link (a running job fails with `session_closed`). */
  async remove(printerId: string, timeoutMs = 5000): Promise<boolean> {
    const s = this.sessions.get(printerId);
    if (!s) return false;
    this.sessions.delete(printerId);
    await withTimeout(s.disconnect(), timeoutMs);
    s.dispose?.();
    return true;
  }

  /**
   * Closes every session in parallel; resolves after all closed or after `timeoutMs`, whichever is first,
   * so a port stuck in the kernel cannot hold up shutdown. Returns the ids that did not close in time.
   */
  async closeAll(timeoutMs = 5000): Promise<string[]> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    const late = new Set(all.map((s) => s.printerId));
    await withTimeout(
      Promise.all(all.map((s) => s.disconnect().then(() => late.delete(s.printerId), () => late.delete(s.printerId)))),
      timeoutMs,
    );
    return [...late];
  }
}

/** Resolves when `p` settles or the time is up; never rejects (shutdown goes on regardless). */
async function withTimeout(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
