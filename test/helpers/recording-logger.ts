// A Logger that keeps every record in memory, for tests that assert what was logged (and how often).
import type { Logger } from '../../src/logger.js';

export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields?: Record<string, unknown>;
}

export function recordingLogger(): Logger & { lines: LogRecord[] } {
  const lines: LogRecord[] = [];
  const at = (level: LogRecord['level']) => (msg: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, msg, ...(fields ? { fields } : {}) });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
