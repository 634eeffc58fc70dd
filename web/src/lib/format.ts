// How numbers read on screen: temperatures, durations, grams, money, dates (the browser's locale and time zone).
import { now } from './clock.js';

export const temp = (value: number | null | undefined): string => (value === null || value === undefined ? '–' : `${Math.round(value)}°C`);

/** 215/215°C, or 24°C when there is no target. */
export function tempWithTarget(value: number | null | undefined, target: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return target ? `${Math.round(value)}/${Math.round(target)}°C` : `${Math.round(value)}°C`;
}

/** Seconds as "1 h 05 min", "12 min", "40 s". */
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '–';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${String(m % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

export const grams = (g: number | null | undefined): string =>
  g === null || g === undefined ? '–' : g >= 1000 ? `${(g / 1000).toFixed(2)} kg` : `${g >= 100 ? Math.round(g) : g.toFixed(1)} g`;

/** Bytes as "12.3 MB", "48 KB", "512 B". */
export const fileSize = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} B`;

export const percent = (p: number | null | undefined, digits = 0): string => (p === null || p === undefined ? '–' : `${p.toFixed(digits)} %`);

export function money(amount: number | null | undefined, currency = 'EUR'): string {
  if (amount === null || amount === undefined) return '–';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** "in 25 min" / "5 min ago" relative to now. */
export function relative(iso: string | null | undefined, at = now()): string {
  if (!iso) return '–';
  const diff = (new Date(iso).getTime() - at) / 1000;
  return diff >= 0 ? `in ${duration(diff)}` : `${duration(-diff)} ago`;
}

/** A CSS colour for a spool colour name or hex value; unknown names fall back to grey (the name is always shown too). */
export function swatchColor(color: string | null | undefined): string {
  if (!color) return 'transparent';
  const c = color.trim();
  if (/^#?[0-9a-f]{6}$/i.test(c) || /^#?[0-9a-f]{3}$/i.test(c)) return c.startsWith('#') ? c : `#${c}`;
  return typeof CSS !== 'undefined' && CSS.supports('color', c) ? c : '#9aa0a6';
}
