// The shared line rules: '\n' and '\r\n' and '\r' end lines, NUL bytes vanish, chunks split anywhere, noise is capped.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { cleanLines, PrinterLineParser, readLines } from '../../src/transport/line-parser.js';

test('cleanLines strips terminators and NUL bytes and keeps garbage as lines', () => {
  const table: Array<[string, string[]]> = [
    ['ok', ['ok']],
    ['ok\r', ['ok']],
    ['\0\0start\r', ['start']],
    ['a\rb', ['a', 'b']],
    ['a\r\rb\r', ['a', '', 'b']],
    ['', ['']],
    ['\0', ['']],
    ['\u00ff\u00fe junk', ['\u00ff\u00fe junk']],
    ['ok T:210.0 /210.0 B:60.0 /60.0 @:127', ['ok T:210.0 /210.0 B:60.0 /60.0 @:127']],
  ];
  for (const [raw, expected] of table) assert.deepEqual(cleanLines(raw), expected, JSON.stringify(raw));
});

test('readLines reassembles lines split across chunks at every byte position', async () => {
  const wire = Buffer.from('\0start\r\nok\r\necho:busy: processing\nResend: 5\r\nok T:20.0 /0.0\n');
  const expected = ['start', 'ok', 'echo:busy: processing', 'Resend: 5', 'ok T:20.0 /0.0'];
  for (let cut = 0; cut <= wire.length; cut++) {
    const source = new PassThrough();
    const lines: string[] = [];
    const stop = readLines(source, (l) => lines.push(l));
    source.write(wire.subarray(0, cut));
    source.write(wire.subarray(cut));
    await stop();
    assert.deepEqual(lines, expected, `cut at ${cut}`);
  }
});

test('stop delivers every complete line received, drops an unfinished one, then delivers nothing more', async () => {
  const source = new PassThrough();
  const lines: string[] = [];
  const stop = readLines(source, (l) => lines.push(l));
  source.write('ok\nError:Printer halted. kill() called!\nok T:2');
  await stop();
  await stop();
  source.write('0.0\nok\n');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(lines, ['ok', 'Error:Printer halted. kill() called!']);
});

test('noise without a newline is delivered in capped pieces instead of growing memory', async () => {
  const parser = new PrinterLineParser(64);
  const pieces: string[] = [];
  parser.on('data', (s: string) => pieces.push(s));
  for (let i = 0; i < 10; i++) parser.write(Buffer.alloc(20, 0x55));
  parser.write('\nok\n');
  parser.end();
  await new Promise((r) => parser.once('end', r));
  assert.ok(parser.buffer.length === 0);
  assert.equal(pieces.at(-1), 'ok');
  const noise = pieces.slice(0, -1).join('');
  assert.equal(noise, 'U'.repeat(200));
  assert.ok(pieces.slice(0, -1).every((p) => p.length <= 64 + 20), JSON.stringify(pieces.map((p) => p.length)));
  assert.ok(pieces.length >= 4, 'the cap split the noise');
});
