// `npx tsx scripts/bench-bgcode.ts [--json] [--quick]`: how fast the .bgcode reader checks a large file.
// JSON (--json), the last line: { file_mb, blocks, crc_ms, crc_mb_per_s, skip_crc_ms, node }: crc_ms is the median time of
// readBgcodeMetadata over the rounds with every block's CRC32 checked, skip_crc_ms the same with G-code CRCs skipped.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { readBgcodeMetadata } from '../src/files/bgcode-reader.js';
import { bgcodeAround } from '../test/helpers/bgcode-builder.js';

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const QUICK = argv.includes('--quick');
for (const a of argv) {
  if (a !== '--json' && a !== '--quick') {
    process.stderr.write(`bench-bgcode: unknown flag ${a} (known: --json, --quick)\n`);
    process.exit(2);
  }
}
const ROUNDS = QUICK ? 3 : 7;
const LINES = QUICK ? 200_000 : 1_000_000;

let gcode = '';
const parts: string[] = [];
for (let i = 0; i < LINES; i++) parts.push(`G1 X${(i % 200) + 10}.${i % 10} Y${(i * 7) % 200}.5 E0.0${i % 90 + 10} F${1200 + (i % 5) * 600}\n`);
gcode = parts.join('');
const file = bgcodeAround(gcode, 'filament used [mm]=12345.6\nestimated printing time (normal mode)=5h 3m 1s\n', 65536);
const dir = mkdtempSync(join(tmpdir(), 'bench-bgcode-'));
const path = join(dir, 'big.bgcode');
writeFileSync(path, file);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function time(skip: boolean): Promise<{ ms: number; blocks: number }> {
  let blocks = 0;
  await readBgcodeMetadata(path, { skipGcodeChecksums: skip });
  const samples: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    blocks = (await readBgcodeMetadata(path, { skipGcodeChecksums: skip })).gcode_blocks;
    samples.push(performance.now() - t0);
  }
  return { ms: median(samples), blocks };
}

try {
  const crc = await time(false);
  const skip = await time(true);
  const mb = file.length / 1e6;
  const result = {
    file_mb: Number(mb.toFixed(1)),
    blocks: crc.blocks,
    crc_ms: Number(crc.ms.toFixed(1)),
    crc_mb_per_s: Number((mb / (crc.ms / 1000)).toFixed(0)),
    skip_crc_ms: Number(skip.ms.toFixed(2)),
    node: process.version,
  };
  process.stdout.write(`bgcode reader, ${ROUNDS} rounds, median (node ${process.version})\n`);
  process.stdout.write(`file ${result.file_mb} MB in ${result.blocks} G-code blocks (deflated)\n`);
  process.stdout.write(`every CRC checked:       ${result.crc_ms} ms (${result.crc_mb_per_s} MB/s)\n`);
  process.stdout.write(`G-code CRCs skipped:     ${result.skip_crc_ms} ms\n`);
  if (JSON_OUT) process.stdout.write(JSON.stringify(result) + '\n');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
