// A delivery attempt aborted before it starts (a shutdown in the same moment) ends as aborted, quietly: the request it
// destroys before it has a socket must not surface as an uncaught "socket hang up" in the process.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AttemptAborted, postWebhook } from '../../src/webhooks/webhook-poster.js';

it('an attempt whose signal is already aborted rejects with AttemptAborted and throws nothing uncaught', async () => {
  const uncaught: Error[] = [];
  const listener = (err: Error): void => void uncaught.push(err);
  // node:test reports an uncaught exception against the running test; listening first makes the check explicit.
  process.prependListener('uncaughtException', listener);
  try {
    const controller = new AbortController();
    controller.abort();
    // Port 9 on loopback: nothing is ever sent, the request is destroyed before it connects.
    await assert.rejects(postWebhook('http://127.0.0.1:9/hook', '{}', {}, { timeoutMs: 5000, signal: controller.signal }), AttemptAborted);
    // The destroyed request reports its hang-up on a later tick.
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(uncaught.map((e) => e.message), []);
  } finally {
    process.removeListener('uncaughtException', listener);
  }
});
