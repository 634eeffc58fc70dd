// A benchmark's human summary: rows of measure, result and target, printed as aligned columns on stdout.

export type ResultRow = [measure: string, result: string, target: string];

export function printResultsTable(rows: readonly ResultRow[]): void {
  const head: ResultRow = ['measure', 'result', 'target'];
  const w = [0, 1, 2].map((c) => Math.max(...[head, ...rows].map((r) => r[c]!.length)));
  const line = (r: readonly string[]): string => r.map((cell, c) => cell.padEnd(w[c]!)).join('  ');
  console.log(line(head));
  console.log(w.map((n) => '-'.repeat(n)).join('  '));
  for (const r of rows) console.log(line(r));
}
