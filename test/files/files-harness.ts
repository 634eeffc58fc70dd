// A files service on a real in-memory SQLite and a temp data directory, for the ingest tests.
import diagnostics from 'node:diagnostics_channel';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { fileLimits, type FileLimits } from '../../src/files/file-limits.js';
import { createFilesService, type FilesService } from '../../src/files/files.service.js';
import type { HostResolver } from '../../src/files/url-guard.js';
import { silentLogger } from '../../src/logger.js';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';

export interface FilesHarness {
  files: FilesService;
  handle: DbHandle;
  dataDir: string;
  /** Names left in the temp upload directory (should be none after any ingest). */
  tempFiles(): string[];
  close(): Promise<void>;
}

/** `resolveHost` answers file_url host names instead of the system resolver. */
export function startFilesHarness(limits: Partial<FileLimits> = {}, resolveHost?: HostResolver): FilesHarness {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'printfarm-files-'));
  const handle = openDatabase(':memory:');
  const files = createFilesService({ db: handle.db, dataDir, clock: new ManualClock(), logger: silentLogger, resolveHost }, fileLimits(limits));
  return {
    files,
    handle,
    dataDir,
    tempFiles: () => {
      try {
        return readdirSync(path.join(dataDir, 'files', 'tmp'));
      } catch {
        return [];
      }
    },
    async close() {
      await handle.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Rejects with the AppError fields, for assert.rejects matchers. */
export const appError = (status: number, code: string, message: RegExp) => (err: unknown) => {
  const e = err as { status?: number; code?: string; message?: string };
  if (e.status !== status || e.code !== code || !message.test(e.message ?? '')) {
    throw new Error(`expected ${status} ${code} ${message}, got ${e.status} ${e.code} "${e.message}"`);
  }
  return true;
};

/**
 * Every address a client socket of this process tries to connect to, from the moment of the call (node:net reports
 * each attempt, whoever opens the socket: node:http or fetch). Tests assert it never holds anything but 127.0.0.1.
 */
export function trackConnectAttempts(): { attempts: string[]; stop(): void } {
  const attempts: string[] = [];
  const onSocket = (message: unknown): void => {
    (message as { socket: Socket }).socket.on('connectionAttempt', (ip: string) => attempts.push(ip));
  };
  diagnostics.subscribe('net.client.socket', onSocket);
  return { attempts, stop: () => diagnostics.unsubscribe('net.client.socket', onSocket) };
}

/** A resolver stub: fixed answers by host name (a function answers differently call by call); unknown names fail like DNS does. */
export function stubResolver(answers: Record<string, string[] | (() => string[])>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const answer = answers[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const list = typeof answer === 'function' ? answer() : answer;
    return list.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolve, { calls });
}
