// Cleans the text fields of a printer create/PATCH body beyond what the schema can say: trimming, control characters, G-code lines.
import { badRequest } from '../errors.js';
import { checkLine, stripGcodeLine } from '../protocol/framing.js';
import { CONTROL_CHARS } from './connection-url.js';
import { GENERIC_PROFILE_NAME, profileByName } from './firmware-profiles.js';

/** Control characters other than tab and line breaks: the only ones a multi-line text may carry. */
const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** A one-line text: trimmed, not blank, no control characters; the message names the field. */
export function cleanText(field: string, value: string): string {
  if (CONTROL_CHARS.test(value)) throw badRequest(`${field}: must not contain control characters`);
  const trimmed = value.trim();
  if (trimmed === '') throw badRequest(`${field}: must not be blank`);
  return trimmed;
}

/** Like cleanText, with null (clear the field) passed through. */
export const cleanOptionalText = (field: string, value: string | null): string | null => (value === null ? null : cleanText(field, value));

export function cleanTags(tags: readonly string[]): string[] {
  const out = tags.map((t, i) => cleanText(`tags[${i}]`, t));
  const dup = out.findIndex((t, i) => out.indexOf(t) !== i);
  if (dup !== -1) throw badRequest(`tags[${dup}]: "${out[dup]}" is given twice`);
  return out;
}

/**
 * The bed-clearing script: every line must be one the firmware can take (checked against the generic profile, the
 * strictest line budget), so a bad script is refused now, not after a print when nobody watches.
 */
export function cleanClearBedGcode(value: string | null): string | null {
  if (value === null) return null;
  if (CONTROL_EXCEPT_LINES.test(value)) throw badRequest('clear_bed_gcode: must not contain control characters other than tabs and line breaks');
  const profile = profileByName(GENERIC_PROFILE_NAME);
  const lines = value.split(/\r?\n|\r/);
  let commands = 0;
  lines.forEach((line, i) => {
    const stripped = stripGcodeLine(line);
    if (stripped === '') return;
    commands++;
    const problem = checkLine(stripped, profile);
    if (problem !== null) throw badRequest(`clear_bed_gcode line ${i + 1}: ${problem}`);
  });
  if (commands === 0) throw badRequest('clear_bed_gcode: holds no command (only comments or blank lines); send null to remove it');
  return lines.join('\n');
}
