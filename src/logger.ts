// A small structured logger: one line per record, level filtered, fields as key=value; quiet in tests unless asked.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

function formatFields(fields: Record<string, unknown> | undefined): string {
  if (!fields) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    const text = typeof v === 'string' ? v : v instanceof Error ? v.message : JSON.stringify(v);
    parts.push(`${k}=${/[\s"=]/.test(text) ? JSON.stringify(text) : text}`);
  }
  return parts.length ? ' ' + parts.join(' ') : '';
}

export function createLogger(level: LogLevel = (process.env.PRINTFARM_LOG_LEVEL as LogLevel) || 'info'): Logger {
  const min = ORDER[level] ?? ORDER.info;
  const write = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[lvl] < min) return;
    const line = `${new Date().toISOString()} ${lvl.toUpperCase().padEnd(5)} ${msg}${formatFields(fields)}\n`;
    (lvl === 'error' || lvl === 'warn' ? process.stderr : process.stdout).write(line);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

export const silentLogger: Logger = createLogger('silent');
