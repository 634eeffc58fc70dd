// Reads Markdown the way GitHub shows it: headings (outside code blocks) with their anchors, and the relative links of a file.

/** GitHub's anchor for a heading text: lower case, punctuation dropped, spaces to dashes. */
export const slugOf = (text: string): string =>
  text.trim().toLowerCase().replace(/<[^>]+>/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

/** The headings of a Markdown text outside fenced code, each with its anchor (a repeat gets -1, -2...). */
export function headingsOf(md: string): { level: number; text: string; anchor: string }[] {
  const out: { level: number; text: string; anchor: string }[] = [];
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of md.split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    if (fence) continue;
    const m = /^(#{1,6}) (.+)$/.exec(line);
    if (!m) continue;
    const base = slugOf(m[2]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.push({ level: m[1]!.length, text: m[2]!.trim(), anchor: n ? `${base}-${n}` : base });
  }
  return out;
}

/** The link targets of a Markdown text outside fenced code and inline code, web addresses left out. */
export function relativeLinksOf(md: string): string[] {
  const prose = md.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}
