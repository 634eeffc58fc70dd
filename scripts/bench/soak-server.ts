// The server under a soak benchmark, in its own process (forked with --expose-gc and an IPC channel): it reports its
// URL and first admin key, then answers each `sample` message with its memory after a full collection.
import { startServer } from '../../src/server.js';
import { silentLogger } from '../../src/logger.js';

const dataDir = process.argv[2];
if (dataDir === undefined || process.send === undefined) {
  process.stderr.write('soak-server: run by bench-soak (fork with IPC), with the data directory as argument\n');
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  process.stderr.write('soak-server: needs --expose-gc\n');
  process.exit(2);
}

const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, env: 'live' }, { logger: silentLogger, shutdownGraceMs: 1000 });
process.send({ kind: 'ready', url: server.url, key: server.initialAdminKey });

process.on('message', (msg: { kind: string }) => {
  if (msg.kind === 'sample') {
    gc();
    const m = process.memoryUsage();
    process.send!({ kind: 'sample', rss: m.rss, heapUsed: m.heapUsed });
  } else if (msg.kind === 'stop') {
    void server.close().then(() => process.exit(0));
  }
});
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
