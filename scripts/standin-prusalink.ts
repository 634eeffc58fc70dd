// `npx tsx scripts/standin-prusalink.ts [--port N] [--api-key user:password|KEY] [--speed S]`: the PrusaLink stand-in for
// manual runs (curl --digest -u user:password http://127.0.0.1:N/api/v1/status); Ctrl-C stops it.
import { startPrusaLinkStandIn } from '../src/simulator/prusalink/prusalink-standin.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const port = Number(opt('--port') ?? 0);
const speed = Number(opt('--speed') ?? 1);
if (!Number.isInteger(port) || port < 0 || port > 65535 || !(speed > 0)) {
  process.stderr.write('usage: standin-prusalink [--port N] [--api-key user:password|KEY] [--speed S]\n');
  process.exit(2);
}
const standIn = await startPrusaLinkStandIn({ port, apiKey: opt('--api-key'), simulator: { speed } });
process.stdout.write(`PrusaLink stand-in at ${standIn.url} (http://127.0.0.1:${standIn.port})\n`);
process.on('SIGINT', () => void standIn.close().then(() => process.exit(0)));
