// Transcript tests for the protocol core: `> ...` lines the host must write, `< ...` lines the firmware sends, `@` time, `!` events in order.
import assert from 'node:assert/strict';
import { HostProtocol } from '../../src/protocol/host-protocol.js';
import type { FirmwareProfile } from '../../src/protocol/firmware-profile.js';
import type { ProtocolAction } from '../../src/protocol/protocol-types.js';
import { profileByName } from '../../src/printers/firmware-profiles.js';

/** Independent of src/: the XOR checksum the transcript appends to `> N<n> cmd` lines written without one. */
function xor(s: string): number {
  let cs = 0;
  for (const ch of Buffer.from(s, 'latin1')) cs ^= ch;
  return cs;
}

export type ProfileOverrides = { [K in keyof FirmwareProfile]?: FirmwareProfile[K] extends object ? Partial<FirmwareProfile[K]> | FirmwareProfile[K] : FirmwareProfile[K] };

export function profile(name: string, overrides: ProfileOverrides = {}): FirmwareProfile {
  const base = profileByName(name);
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(overrides)) {
    const cur = (base as unknown as Record<string, unknown>)[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' ? { ...cur, ...v } : v;
  }
  return out as unknown as FirmwareProfile;
}

export class Transcript {
  now = 1_000_000;
  /** Framed lines written and not yet matched by a `>` step. */
  readonly written: string[] = [];
  /** Lone newlines written (the quiet-wire nudge), kept apart from framed lines. */
  nudges = 0;
  /** Non-write actions not yet matched by a `!` step. */
  readonly events: ProtocolAction[] = [];
  /** Every action, in order, for assertions beyond the script. */
  readonly log: ProtocolAction[] = [];
  readonly writes: string[] = [];

  constructor(readonly proto: HostProtocol) {}

  static for(name: string, overrides: ProfileOverrides = {}, historySize?: number): Transcript {
    const p = profile(name, overrides);
    return new Transcript(new HostProtocol(historySize === undefined ? { profile: p } : { profile: p, historySize }));
  }

  /** A link past the handshake: `M110 N0` written and acknowledged. */
  static connected(name: string, overrides: ProfileOverrides = {}, historySize?: number): Transcript {
    const t = Transcript.for(name, overrides, historySize);
    t.proto.resetLineNumbers(t.now);
    if (t.proto.currentProfile.checksum === 'xor') t.run('> N0 M110 N0*125\n< ok');
    t.drain();
    t.events.length = 0;
    return t;
  }

  collect(): void {
    for (const a of this.proto.takeActions()) {
      this.log.push(a);
      if (a.type === 'write' && a.data === '\n') {
        // A lone newline is the quiet-wire nudge: counted here, asserted by the tests that are about it.
        this.nudges++;
      } else if (a.type === 'write') {
        this.writes.push(a.data);
        const parts = a.data.split('\n');
        assert.equal(parts.pop(), '', `a write must end with a newline: ${JSON.stringify(a.data)}`);
        this.written.push(...parts);
      } else this.events.push(a);
    }
  }

  drain(): void {
    this.collect();
  }

  job(...lines: string[]): this {
    for (const l of lines) this.proto.pushJobLine(l, l.length + 1, this.now);
    this.collect();
    return this;
  }

  command(text: string): number {
    const id = this.proto.sendCommand(text, this.now);
    this.collect();
    return id;
  }

  /**
   * Runs a script; every `>` must match the next written line, every `!` the next event, and at the end nothing
   * unexpected was written (nor, in a script with `!` steps, emitted).
   */
  run(script: string): this {
    const statesEvents = /^\s*!/m.test(script);
    for (const rawLine of script.split('\n')) {
      const line = rawLine.replace(/^\s+/, '');
      if (line === '' || line.startsWith('#')) continue;
      const op = line[0];
      const arg = line.slice(2);
      if (op === '<') {
        this.proto.lineReceived(arg.replace(/\\0/g, '\0'), this.now);
        this.collect();
      } else if (op === '>') {
        this.collect();
        const expected = /^N\d+ /.test(arg) && !arg.includes('*') ? `${arg}*${xor(arg)}` : arg;
        assert.ok(this.written.length > 0, `expected the host to write '${expected}', it wrote nothing`);
        assert.equal(this.written.shift(), expected);
      } else if (op === '@') {
        // `@ +500` advances, `@ 1000` sets (relative to the start).
        this.now = arg.startsWith('+') ? this.now + Number(arg.slice(1)) : 1_000_000 + Number(arg);
        this.proto.tick(this.now);
        this.collect();
      } else if (op === '!') {
        // `! type needle` expects the next event; `!*3 type needle` the next three, each matching.
        this.collect();
        const m = /^!(?:\*(\d+))? (\S+)(?: (.*))?$/.exec(line);
        if (m === null) throw new Error(`bad transcript line: ${rawLine}`);
        const [, times, type, needle = ''] = m;
        for (let k = 0; k < Number(times ?? 1); k++) this.expectEvent(type!, needle);
      } else if (op === '=') {
        // `= nothing written`
        this.collect();
        assert.deepEqual(this.written, [], 'nothing more should have been written');
      } else {
        throw new Error(`bad transcript line: ${rawLine}`);
      }
    }
    this.collect();
    assert.deepEqual(this.written, [], 'the host wrote lines the transcript does not show');
    // A transcript that states events states all of them: one left over at the end is unexpected too.
    if (statesEvents) assert.deepEqual(this.events, [], 'the core emitted events the transcript does not state');
    return this;
  }

  /**
   * The next event must be this one: an event the transcript does not state fails the step, so a core that emits
   * something extra (or in another order) cannot pass.
   */
  private expectEvent(type: string, needle: string): void {
    const next = this.events[0];
    assert.ok(next !== undefined, `expected action ${type} ${needle}; no event is waiting`);
    assert.ok(
      next.type === type && JSON.stringify(next).includes(needle),
      `expected action ${type} ${needle}; the next event is ${JSON.stringify(next)} (waiting: ${JSON.stringify(this.events)})`,
    );
    this.events.shift();
  }

  /** True when no action of this type is waiting. */
  none(type: ProtocolAction['type']): boolean {
    this.collect();
    return !this.events.some((a) => a.type === type);
  }
}

/** The job lines acknowledged so far, in the order the protocol reported them. */
export function ackedJobLines(t: Transcript): number[] {
  return t.log.flatMap((a) => (a.type === 'job-acked' ? [a.jobLine] : []));
}
