// Waits until something listens on 127.0.0.1:port (a server the stand-in started as a separate program), or its deadline.
import net from 'node:net';

export async function waitForPort(port: number, timeoutMs: number, alive: () => string | null): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const dead = alive();
    if (dead !== null) throw new Error(dead);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port });
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A free port on 127.0.0.1, as the kernel hands out (closed again at once). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
