// A strict reader of the Prometheus text exposition format (0.0.4): throws on any line that breaks it, so a test that
// reads /metrics through it also checks that a scraper can.
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name -> declared type. */
  types: Map<string, string>;
  samples: MetricSample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(?:,|$)/;
/** Go's ParseFloat, which Prometheus uses: decimals, and NaN, Inf, Infinity in any case (prom-client writes `Nan`). */
const VALUE = /^(?:[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf(?:inity)?|nan)$/i;
function numberOf(v: string): number {
  if (/^nan$/i.test(v)) return NaN;
  if (/inf/i.test(v)) return v.startsWith('-') ? -Infinity : Infinity;
  return Number(v);
}
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** Which declared family a sample belongs to: itself, or a histogram's/summary's _bucket, _sum, _count. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  if (!m) return undefined;
  const type = types.get(m[1]!);
  if (type === 'histogram' || (type === 'summary' && m[2] !== 'bucket')) return m[1];
  return undefined;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const m = LABEL.exec(rest);
    if (!m) throw new Error(`bad label set in: ${line}`);
    if (m[1]! in labels) throw new Error(`repeated label ${m[1]} in: ${line}`);
    labels[m[1]!] = m[2]!.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    rest = rest.slice(m[0].length);
  }
  return labels;
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: MetricSample[] = [];
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const help = new RegExp(`^# HELP (${NAME}) .*$`).exec(line);
      const type = new RegExp(`^# TYPE (${NAME}) (\\w+)$`).exec(line);
      if (type) {
        if (!TYPES.has(type[2]!)) throw new Error(`unknown type in: ${line}`);
        if (types.has(type[1]!)) throw new Error(`family declared twice: ${line}`);
        types.set(type[1]!, type[2]!);
      } else if (!help && /^# (HELP|TYPE)\b/.test(line)) throw new Error(`bad ${line.slice(2, 6)} line: ${line}`);
      // Any other comment is allowed and ignored, as scrapers do.
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`bad sample line: ${line}`);
    if (!familyOf(m[1]!, types)) throw new Error(`sample of an undeclared family: ${line}`);
    if (!VALUE.test(m[3]!)) throw new Error(`bad value in: ${line}`);
    samples.push({ name: m[1]!, labels: parseLabels(m[2] ?? '', line), value: numberOf(m[3]!) });
  }
  return { types, samples };
}

/** The samples of one name whose labels include `labels`. */
export const samplesOf = (e: Exposition, name: string, labels: Record<string, string> = {}): MetricSample[] =>
  e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

/** The value of the one sample of `name` with these labels; throws when there is not exactly one. */
export function valueOf(e: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = samplesOf(e, name, labels);
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]!.value;
}
