// Child process of bench:cameras: opens `per` live views of each camera URL given on stdin (one JSON array line) with
// the key in BENCH_KEY, reads and discards the frames, and prints the bytes received per second once a second.
import http from 'node:http';

const per = Number(process.argv[2] ?? 3);
const key = process.env.BENCH_KEY ?? '';
let bytes = 0;
let input = '';
process.stdin.setEncoding('utf8').on('data', (d: string) => {
  input += d;
  if (!input.includes('\n')) return;
  const urls = JSON.parse(input.split('\n')[0]!) as string[];
  for (const url of urls) {
    for (let i = 0; i < per; i++) {
      const req = http.get(url, { headers: { Authorization: `Bearer ${key}` }, agent: false }, (res) => res.on('data', (c: Buffer) => (bytes += c.length)));
      req.on('error', (err) => process.stderr.write(`viewer: ${err.message}\n`));
    }
  }
});
setInterval(() => {
  process.stdout.write(`bytes ${bytes}\n`);
  bytes = 0;
}, 1000);
process.on('SIGTERM', () => process.exit(0));
