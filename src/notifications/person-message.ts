// Pure: turns recorded events into a message written for a person (what happened, where, when, what to do, a link),
// one event in full or a group (a flood, a digest) as one summary; each service's formatter then fits it to its limits.

/** An event as the outbox stored it: its public type, when, and the object as the API showed it then. */
export interface NotifyEvent {
  type: string;
  createdMs: number;
  object: Record<string, unknown>;
}

export interface MessageContext {
  /** The organization's IANA time zone: times are written in it. */
  timeZone: string;
  /** The dashboard's address (no trailing slash), or null: no links. */
  dashboardUrl: string | null;
  /** Printer names by id (events carry ids only for jobs). */
  printerName(id: string): string | undefined;
}

export interface MessageItem {
  /** One line: "Job “benchy” failed on Prusa 7 at 40 %". */
  headline: string;
  /** Sentences: the reason, when, what to do. */
  detail: string;
  link: string | null;
}

export interface PersonMessage {
  title: string;
  /** Each event in order; a group lists them all (formatters cut to their size). */
  items: MessageItem[];
  /** The page to open: the single event's page, or the farm overview for a group. */
  link: string | null;
  urgent: boolean;
  /** When the (last) event happened, in the farm's time zone, e.g. "14:03 (Europe/Berlin)". */
  when: string;
}

/** Events that reach people even in quiet hours: something stopped and waits for a person. */
/** node.lost: a whole box stopped, with its printers; storage.low: writes and uploads are about to fail. */
export const URGENT_TYPES: readonly string[] = ['job.failed', 'printer.error', 'printer.offline', 'material.empty', 'node.lost', 'storage.low'];
export const isUrgent = (type: string): boolean => URGENT_TYPES.includes(type);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function localTime(ms: number, timeZone: string): string {
  const text = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', day: 'numeric', month: 'short' }).format(ms);
  return `${text} (${timeZone})`;
}

function page(ctx: MessageContext, ...parts: string[]): string | null {
  return ctx.dashboardUrl === null ? null : `${ctx.dashboardUrl}/#/${parts.map(encodeURIComponent).join('/')}`;
}

function printerLabel(ctx: MessageContext, id: string | undefined): string {
  if (!id) return 'no printer';
  return ctx.printerName(id) ?? id;
}

/** One event as a line and its detail. */
export function describeEvent(e: NotifyEvent, ctx: MessageContext): MessageItem {
  const o = e.object;
  const at = localTime(e.createdMs, ctx.timeZone);
  if (e.type.startsWith('job.')) {
    const job = `“${str(o.name) ?? str(o.id) ?? 'a job'}”`;
    const printerId = str(o.printer_id);
    const on = printerId ? ` on ${printerLabel(ctx, printerId)}` : '';
    const progress = num(o.progress);
    const link = printerId ? page(ctx, 'printers', printerId) : page(ctx, 'queue');
    const error = o.error as { message?: unknown } | null | undefined;
    const reason = str(error?.message);
    // The job's last camera picture, opened in a browser signed in to the dashboard (the farm's own address: a
    // service's servers could not fetch it, so it is a link, not an embedded image).
    const shot = str(o.last_snapshot_url);
    const picture = shot && ctx.dashboardUrl !== null ? ` Last picture: ${ctx.dashboardUrl}${shot}` : '';
    switch (e.type) {
      case 'job.failed':
        return {
          headline: `Job ${job} failed${on}${progress !== undefined ? ` at ${Math.round(progress)} %` : ''}`,
          detail: `${reason ? `Reason: ${reason}. ` : ''}At ${at}. Look at the printer, clear the bed, then requeue the job from the dashboard.${picture}`,
          link,
        };
      case 'job.completed':
        return { headline: `Job ${job} finished${on}`, detail: `At ${at}. Take the print off and mark the bed cleared so the next job can start.${picture}`, link };
      case 'job.cancelled':
        return { headline: `Job ${job} was cancelled${on}`, detail: `At ${at}. Clear the bed before the next job.${picture}`, link };
      default:
        return { headline: `Job ${job}: ${e.type.slice(4)}${on}`, detail: `At ${at}.`, link };
    }
  }
  if (e.type.startsWith('printer.')) {
    const name = str(o.name) ?? str(o.id) ?? 'a printer';
    const reason = str(o.offline_reason) ?? str(o.reason);
    const link = str(o.id) ? page(ctx, 'printers', o.id as string) : page(ctx);
    const because = reason ? `Reason: ${reason}. ` : '';
    switch (e.type) {
      case 'printer.offline':
        return { headline: `Printer ${name} went offline`, detail: `${because}At ${at}. Check its power and its cable or network; the farm reconnects by itself.`, link };
      case 'printer.error':
        return { headline: `Printer ${name} stopped with an error`, detail: `${because}At ${at}. Check the printer before printing again.`, link };
      case 'printer.online':
        return { headline: `Printer ${name} is back online`, detail: `At ${at}.`, link };
      case 'printer.bed_waiting':
        return { headline: `Printer ${name} waits for its bed to be cleared`, detail: `Since ${at}. Take the print off, then press Bed cleared on the dashboard so the next job can start.`, link };
      default:
        return { headline: `Printer ${name}: ${e.type.slice(8)}`, detail: `${because}At ${at}.`, link };
    }
  }
  if (e.type.startsWith('material.')) {
    const spool = [str(o.brand), str(o.type), str(o.color)].filter(Boolean).join(' ') || str(o.id) || 'a spool';
    const grams = num(o.remaining_weight);
    const left = grams !== undefined ? ` (${Math.round(grams)} g left)` : '';
    const where = str(o.printer_id) ? ` on ${printerLabel(ctx, o.printer_id as string)}` : '';
    const empty = e.type === 'material.empty';
    return {
      headline: `Filament ${empty ? 'ran out' : 'low'}: ${spool}${where}${left}`,
      detail: `At ${at}. ${empty ? 'Load a new spool to go on printing.' : 'Have a new spool ready.'}`,
      link: page(ctx, 'materials'),
    };
  }
  if (e.type === 'storage.low') {
    const full = o.state === 'full';
    return {
      headline: full ? 'The farm’s disk is full' : 'The farm’s disk is running out of room',
      detail: `At ${at}, ${num(o.free_mb) ?? '?'} MB were free with ${num(o.reserve_mb) ?? '?'} MB kept for the database${str(o.node_id) ? ` (box ${o.node_id})` : ''}. ${full ? 'Writes are held until there is room.' : 'New uploads are refused.'} Delete old files or jobs, or give the box a bigger disk.`,
      link: page(ctx),
    };
  }
  if (e.type === 'queue.empty') {
    const last = (o.last_started ?? {}) as Record<string, unknown>;
    const on = str(last.printer_id) ? ` on ${printerLabel(ctx, last.printer_id as string)}` : '';
    return {
      headline: 'The print queue is empty',
      detail: `The last queued job, “${str(last.name) ?? str(last.id) ?? 'a job'}”, started${on} at ${at}. Add jobs so the printers do not stand idle when it is done.`,
      link: page(ctx, 'queue'),
    };
  }
  if (e.type === 'node.lost') {
    const name = str(o.name) ?? str(o.id) ?? 'a box';
    const printers = Array.isArray(o.printers) ? o.printers.length : 0;
    return {
      headline: `Box ${name} of the farm was lost`,
      detail: `It stopped answering at ${at}${printers > 0 ? `; its ${printers} printer${printers === 1 ? '' : 's'} are offline with it` : ''}. Jobs printing on its USB printers failed; network printers moved to another box. Check its power and network.`,
      link: page(ctx, 'nodes'),
    };
  }
  return { headline: `Event ${e.type}`, detail: `At ${at}.`, link: page(ctx) };
}

const KIND_WORDS: Record<string, [string, string]> = {
  'job.failed': ['job failed', 'jobs failed'],
  'job.completed': ['job finished', 'jobs finished'],
  'job.cancelled': ['job cancelled', 'jobs cancelled'],
  'printer.offline': ['printer offline', 'printers offline'],
  'printer.error': ['printer error', 'printer errors'],
  'printer.online': ['printer back online', 'printers back online'],
  'material.low': ['spool low', 'spools low'],
  'material.empty': ['spool empty', 'spools empty'],
  'printer.bed_waiting': ['bed to clear', 'beds to clear'],
  'node.lost': ['box lost', 'boxes lost'],
  'queue.empty': ['queue empty', 'times the queue ran empty'],
  'storage.low': ['disk low', 'disks low'],
};

/** Events to one message: one in full; several (a flood, a digest) counted by kind in the title, each listed. */
export function buildMessage(events: readonly NotifyEvent[], ctx: MessageContext, digest = false): PersonMessage {
  const items = events.map((e) => describeEvent(e, ctx));
  const last = events[events.length - 1];
  const when = last ? localTime(last.createdMs, ctx.timeZone) : localTime(0, ctx.timeZone);
  const urgent = events.some((e) => isUrgent(e.type));
  if (events.length === 1) return { title: items[0]!.headline, items, link: items[0]!.link, urgent, when };
  const counts = new Map<string, number>();
  for (const e of events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  const parts = [...counts].map(([type, n]) => {
    const words = KIND_WORDS[type] ?? [type, type];
    return `${n} ${n === 1 ? words[0] : words[1]}`;
  });
  const title = `${digest ? 'Digest' : 'Farm alert'}: ${parts.join(', ')}`;
  return { title, items, link: page(ctx), urgent, when };
}

/** The message a Send test sends: proves the channel works end to end. */
export function testMessage(ctx: MessageContext, nowMs: number): PersonMessage {
  const when = localTime(nowMs, ctx.timeZone);
  return {
    title: 'Test message from your print farm',
    items: [{ headline: 'This channel works', detail: `Sent at ${when} by Send test. Real messages look like this one.`, link: page(ctx) }],
    link: page(ctx),
    urgent: false,
    when,
  };
}
