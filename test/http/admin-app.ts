// A describe-level fixture: the real test app with one admin:* key, started before the suite and closed after it.
import { after, before } from 'node:test';
import { mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';

export interface AdminApp {
  readonly t: TestApp;
  readonly admin: string;
}

/** Call inside describe(); read `.t` and `.admin` in the tests (they are set once the suite's before hook ran). */
export function useAdminApp(): AdminApp {
  let t: TestApp | undefined;
  let admin = '';
  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
  });
  after(async () => {
    await t?.close();
  });
  return {
    get t(): TestApp {
      if (!t) throw new Error('useAdminApp: the suite has not started yet');
      return t;
    },
    get admin(): string {
      return admin;
    },
  };
}
