// A TCP port on 127.0.0.1 that is free now (bound, then released): where nothing answers, or where a test listens next.
import net from 'node:net';

export async function freeTcpPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
