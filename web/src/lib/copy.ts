// Copying a value to the clipboard, with a select-the-text fallback for plain-http dashboards (no Clipboard API there).

/** What a copy came to: on the clipboard, only selected in its field (the user presses Ctrl+C), or neither. */
export type CopyOutcome = 'copied' | 'selected' | 'failed';

/**
 * Copies `text`. The Clipboard API exists only in secure contexts (https, localhost), and a LAN dashboard is usually
 * plain http, so without it (or when it is refused) the field is focused and selected and the old copy command tried:
 * Chromium and Firefox still honour it during the click. When that fails too, the text stays selected for Ctrl+C.
 */
export async function copyText(text: string, input: HTMLInputElement | null): Promise<CopyOutcome> {
  if (typeof navigator.clipboard?.writeText === 'function') {
    try {
      await navigator.clipboard.writeText(text);
      return 'copied';
    } catch {
      // refused (no permission, page not focused): fall through to the selection
    }
  }
  if (!input) return 'failed';
  input.focus();
  input.select();
  try {
    if (document.execCommand('copy')) return 'copied';
  } catch {
    // some browsers throw instead of answering false
  }
  return 'selected';
}

/** The outcome in words for a status line ('' before any copy). */
export function copyWords(outcome: CopyOutcome | null, what = 'it'): string {
  if (outcome === 'copied') return 'Copied to the clipboard.';
  if (outcome === 'selected') return `This browser does not let the page copy here: ${what} is selected, press Ctrl+C (⌘C on a Mac) to copy.`;
  if (outcome === 'failed') return 'Copying failed: select the text and copy it by hand.';
  return '';
}
