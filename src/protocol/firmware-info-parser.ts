// Parses M115 answers: the FIRMWARE_NAME line's key:value fields (space or comma separated) and `Cap:NAME:0|1` lines.
import type { FirmwareInfo } from './protocol-types.js';

// A key is an upper-case word (Smoothieware adds `X-` prefixes) directly followed by `:` at a word boundary.
const KEY_RE = /(?:^|[\s,])([A-Z][A-Z0-9_-]*[A-Z0-9_]):/g;

/** Fields of a `FIRMWARE_NAME:... KEY:value ...` line; values keep inner spaces, lose separators around them. */
export function parseFirmwareFields(line: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const text = line.startsWith('ok ') ? line.slice(3) : line;
  const keys: Array<{ key: string; start: number; valueStart: number }> = [];
  KEY_RE.lastIndex = 0;
  for (let m = KEY_RE.exec(text); m; m = KEY_RE.exec(text)) {
    const key = m[1]!;
    const keyAt = m.index + m[0].length - key.length - 1;
    keys.push({ key, start: keyAt, valueStart: m.index + m[0].length });
  }
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const end = i + 1 < keys.length ? keys[i + 1]!.start : text.length;
    fields[k.key] = text.slice(k.valueStart, end).replace(/^[\s]+|[\s,]+$/g, '');
  }
  return fields;
}

/** `Cap:AUTOREPORT_TEMP:1` → ['AUTOREPORT_TEMP', true]; null when the line is not a capability line. */
export function parseCapabilityLine(line: string): [string, boolean] | null {
  const m = /^Cap:([A-Za-z0-9_]+):\s*([01])\s*$/.exec(line);
  return m ? [m[1]!.toUpperCase(), m[2] === '1'] : null;
}

/** Builds FirmwareInfo from the reply lines of an M115 (the FIRMWARE_NAME line, Cap lines, the ok). */
export function parseM115(lines: readonly string[]): FirmwareInfo | null {
  let info: FirmwareInfo | null = null;
  const caps: Record<string, boolean> = {};
  for (const line of lines) {
    if (line.includes('FIRMWARE_NAME:')) {
      const fields = parseFirmwareFields(line);
      info = { name: fields.FIRMWARE_NAME ?? '', fields, capabilities: caps };
      continue;
    }
    const cap = parseCapabilityLine(line);
    if (cap) caps[cap[0]] = cap[1];
  }
  return info;
}
