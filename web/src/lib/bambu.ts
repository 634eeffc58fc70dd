// Pure: a Bambu Lab printer's own state (the record's `bambu` part) in words: layers, time left, fan, AMS trays, HMS
// errors, and its certificate pin (shown, kept in the URL, or re-pinned after a reset).
import { parseNetworkUrl, buildNetworkUrl } from './printer-kinds.js';
import type { BambuView } from '../../../src/printers/bambu/bambu-view.js';

/** GET /v1/printers/:id `bambu` (null for the other kinds): the server's own schema type, one source for the shape. */
export type BambuState = BambuView;
export type BambuTray = BambuView['ams'][number];
export type BambuHms = BambuView['hms'][number];
export type HmsSeverity = BambuHms['severity'];

/** "Layer 12 of 200", "Layer 12", or null when the printer says nothing (idle, or before the first layer). */
export function layerWords(b: Pick<BambuState, 'layer' | 'total_layers'>): string | null {
  if (b.layer === null || (b.layer === 0 && !b.total_layers)) return null;
  return b.total_layers ? `Layer ${b.layer} of ${b.total_layers}` : `Layer ${b.layer}`;
}

/**
 * The printer's own estimate, in whole minutes as it gives them: "42 min left", "2 h 05 min left"; null when it gives
 * none. (Written here rather than with format.ts's duration, which needs the browser's CSS object and so no Node test.)
 */
export function timeLeftWords(minutes: number | null): string | null {
  if (minutes === null || !Number.isFinite(minutes) || minutes <= 0) return null;
  const m = Math.round(minutes);
  return m < 60 ? `${m} min left` : `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min left`;
}

export const fanWords = (percent: number | null): string => (percent === null ? 'not reported' : percent === 0 ? 'off' : `${Math.round(percent)} %`);

/** "80 % left", "amount unknown" (the AMS reads no RFID tag on third-party spools). */
export const remainWords = (percent: number | null): string => (percent === null || percent < 0 ? 'amount unknown' : `${Math.round(percent)} % left`);

const SEVERITY_WORDS: Record<HmsSeverity, string> = {
  fatal: 'Fatal',
  serious: 'Serious',
  common: 'Warning',
  info: 'Notice',
  unknown: 'Message',
};

export const severityWords = (s: HmsSeverity): string => SEVERITY_WORDS[s] ?? SEVERITY_WORDS.unknown;

/**
 * An HMS error in words. Without a copy of Bambu's texts the server's message is its generic form (severity, module,
 * code and wiki link, all shown beside it already): then the module and code say it shorter.
 */
export function hmsText(h: Pick<BambuHms, 'code' | 'module' | 'message'>): string {
  if (h.message && !h.message.includes(h.code)) return h.message;
  return `The ${h.module || 'printer'} reports error ${h.code.replace(/^HMS_/, '')}; the printer’s screen and Bambu Lab’s page for this code say what to do.`;
}

/** The worst first, so a card that shows one shows the one that matters. */
export function hmsByWeight(hms: readonly BambuHms[]): BambuHms[] {
  const rank: Record<HmsSeverity, number> = { fatal: 0, serious: 1, common: 2, info: 3, unknown: 4 };
  return [...hms].sort((a, b) => (rank[a.severity] ?? 4) - (rank[b.severity] ?? 4));
}

/** A SHA-256 as the owner compares it: upper-case pairs joined by colons; '' for what is not one. */
export function shownFingerprint(fp: string | null | undefined): string {
  const hex = (fp ?? '').replace(/:/g, '').toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? hex.toUpperCase().match(/../g)!.join(':') : '';
}

const sameFingerprint = (a: string | null | undefined, b: string | null | undefined): boolean =>
  shownFingerprint(a) !== '' && shownFingerprint(a) === shownFingerprint(b);

/** The fingerprint a bambu:// URL pins, or null (then the printer's certificate is pinned on first contact, until a restart). */
export function urlFingerprint(url: string): string | null {
  const parsed = parseNetworkUrl(url);
  return parsed?.kind === 'bambu' && parsed.fields.fingerprint ? parsed.fields.fingerprint : null;
}

/** Whether the URL keeps this pin (so it survives our restart), as opposed to a pin held only by the running link. */
export const pinnedInUrl = (url: string, fp: string | null): boolean => sameFingerprint(urlFingerprint(url), fp);

/**
 * The bambu:// URL with its pin set to `fp` (null: removed, so the next contact pins what the printer presents), the
 * rest kept as it is; null when the URL cannot be read as a Bambu one.
 */
export function withFingerprint(url: string, fp: string | null): string | null {
  const parsed = parseNetworkUrl(url);
  if (parsed?.kind !== 'bambu') return null;
  return buildNetworkUrl('bambu', { ...parsed.fields, fingerprint: fp ? fp.replace(/:/g, '').toLowerCase() : '' });
}

