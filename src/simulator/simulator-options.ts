// The virtual printer's settings, parsed and validated once from a sim:// URL query or `printfarm simulate` flags.

/*
 * Options (URL query `sim://name?profile=marlin&baud=250000` or CLI `--profile marlin --baud 250000`):
 *
 *   profile            marlin | prusa | reprapfirmware | klipper | smoothieware | repetier   (default marlin)
 *   baud               link rate in bit/s, 10 bits a byte; 0 = native USB: no rate limit, and a full RX buffer
 *                      pushes back instead of losing bytes                                    (default 250000)
 *   speed              simulated time runs this many times faster than real time, or `max`: motion, dwell,
 *                      heating and boot take no time while the link keeps its real rate       (default 1)
 *   instant            1 = moves, dwells and heating take no time; the link still takes its time (default 0)
 *   rx                 firmware receive buffer in bytes; bytes arriving while it is full are lost (default 128)
 *   slots              command queue slots (Marlin BUFSIZE), the executing command included    (default 4)
 *   planner            planner blocks                                                          (default 16)
 *   advanced_ok        1 = `ok N<n> P<planner free> B<slots free>` and Cap:ADVANCED_OK:1       (default 0)
 *   autoreport         1 = M155 temperature autoreport supported (Cap:AUTOREPORT_TEMP)          (default 1)
 *   latency_ms         USB round trip; half of it delays each direction                        (default 0)
 *   boot_ms            after power-on or reset the firmware ignores input this long, then prints its banner
 *                      (simulated ms; none at speed=max)                                       (default 0)
 *   boot_noise         1 = garbage and NUL bytes before the `start` banner                      (default 0)
 *   busy_interval_s    seconds between `echo:busy: processing` lines (M113 changes it)          (default 2)
 *   record             1 = keep every executed command in `executed` (tests that compare what ran ask for it);
 *                      0 keeps the last 256 in a ring besides the count and a hash, so memory stays flat
 *                      however long the printer runs                                            (default 0)
 *   bed                travel limits in mm, XxYxZ, from 0                                      (default 220x220x250)
 *   soft_endstops      1 = moves beyond `bed` are clamped (Marlin family) or refused with the firmware's
 *                      out-of-range error (Klipper, RepRapFirmware); M211 S0/S1 switches them  (default 1)
 *   emergency_parser   Marlin only: 1 = EMERGENCY_PARSER, M108 and M112 act as their bytes arrive (M108 ends a
 *                      heat-up wait at once); 0 = they act only when their line is read from the queue (default 1)
 *   meatpack           Marlin only: 1 = built with MeatPack (Cap:MEATPACK:1): the firmware unpacks what the host
 *                      packs, after its RX buffer and before its line reader; 0 = not built in  (default 1)
 *   residency_s        seconds M109/M190 go on waiting once the heater is within 1 °C of its target, like
 *                      Marlin's TEMP_RESIDENCY_TIME / TEMP_BED_RESIDENCY_TIME (10 there); none when instant (default 0)
 * Fault injection (all deterministic for a given seed):
 *   error_rate         probability that a host->printer byte is corrupted (one bit flipped)     (default 0)
 *   loss_rate          probability that a host->printer byte is lost on the wire               (default 0)
 *   drop_ok_every      N: the Nth, 2Nth, ... command `ok` is never sent (0 = off)              (default 0)
 *   packed_error_rate  probability that a byte the firmware unpacks while MeatPack packing is on is corrupted (one
 *                      bit flipped; command signals are spared)                                 (default 0)
 *   duplicate_resend   1 = every resend request (and its ok) is sent twice                      (default 0)
 *   reset_after_lines  N: the board resets (banner `start`) after executing N commands (0 = off)
 *   unplug_after_lines N: the cable is pulled after N executed commands (0 = off)
 *   runaway_after_lines N: thermal runaway halt after N executed commands (0 = off)
 *   seed               PRNG seed for the faults                                                 (default 1)
 */

export const SIM_PROFILES = ['marlin', 'prusa', 'reprapfirmware', 'klipper', 'smoothieware', 'repetier'] as const;
export type SimProfileName = (typeof SIM_PROFILES)[number];

export interface SimulatorOptions {
  profile: SimProfileName;
  baud: number;
  /** A factor > 0, or 'max'. */
  speed: number | 'max';
  instant: boolean;
  rx: number;
  slots: number;
  planner: number;
  advancedOk: boolean;
  autoreport: boolean;
  latencyMs: number;
  bootMs: number;
  bootNoise: boolean;
  busyIntervalS: number;
  record: boolean;
  /** Travel limits in mm (from 0). */
  bed: { X: number; Y: number; Z: number };
  softEndstops: boolean;
  /** Marlin's EMERGENCY_PARSER (the dialects without one ignore it). */
  emergencyParser: boolean;
  /** Marlin built with MeatPack (the other dialects ignore it). */
  meatpack: boolean;
  /** Simulated seconds a heat-up wait lasts after the target is reached. */
  residencyS: number;
  errorRate: number;
  lossRate: number;
  packedErrorRate: number;
  dropOkEvery: number;
  duplicateResend: boolean;
  resetAfterLines: number;
  unplugAfterLines: number;
  runawayAfterLines: number;
  seed: number;
}

export const DEFAULT_SIMULATOR_OPTIONS: Readonly<SimulatorOptions> = Object.freeze({
  profile: 'marlin',
  baud: 250000,
  speed: 1,
  instant: false,
  rx: 128,
  slots: 4,
  planner: 16,
  advancedOk: false,
  autoreport: true,
  latencyMs: 0,
  bootMs: 0,
  bootNoise: false,
  busyIntervalS: 2,
  record: false,
  bed: Object.freeze({ X: 220, Y: 220, Z: 250 }),
  softEndstops: true,
  emergencyParser: true,
  meatpack: true,
  residencyS: 0,
  errorRate: 0,
  lossRate: 0,
  packedErrorRate: 0,
  dropOkEvery: 0,
  duplicateResend: false,
  resetAfterLines: 0,
  unplugAfterLines: 0,
  runawayAfterLines: 0,
  seed: 1,
});

type Parser = (raw: string, name: string) => Partial<SimulatorOptions>;

const fail = (name: string, raw: string, want: string): Error =>
  new Error(`simulator option "${name}": "${raw}" is not valid (expected ${want})`);

function int(min: number, max: number, key: keyof SimulatorOptions): Parser {
  return (raw, name) => {
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) throw fail(name, raw, `an integer from ${min} to ${max}`);
    return { [key]: n };
  };
}

function num(min: number, max: number, key: keyof SimulatorOptions, inclusiveMin = true): Parser {
  return (raw, name) => {
    const n = /^\d+(\.\d+)?(e-?\d+)?$/i.test(raw) ? Number(raw) : NaN;
    const lowOk = inclusiveMin ? n >= min : n > min;
    if (!Number.isFinite(n) || !lowOk || n > max) {
      throw fail(name, raw, `a number ${inclusiveMin ? '>=' : '>'} ${min} and <= ${max}`);
    }
    return { [key]: n };
  };
}

function flag(key: keyof SimulatorOptions): Parser {
  return (raw, name) => {
    if (raw === '1' || raw === 'true') return { [key]: true };
    if (raw === '0' || raw === 'false') return { [key]: false };
    throw fail(name, raw, '0 or 1');
  };
}

const PARSERS: Record<string, Parser> = {
  profile: (raw, name) => {
    if (!(SIM_PROFILES as readonly string[]).includes(raw)) throw fail(name, raw, `one of ${SIM_PROFILES.join(', ')}`);
    return { profile: raw as SimProfileName };
  },
  baud: int(0, 20_000_000, 'baud'),
  speed: (raw, name) => {
    if (raw === 'max') return { speed: 'max' };
    const n = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
    if (!(n > 0) || n > 1_000_000) throw fail(name, raw, 'a number > 0 or "max"');
    return { speed: n };
  },
  instant: flag('instant'),
  rx: int(16, 1 << 20, 'rx'),
  slots: int(1, 1024, 'slots'),
  planner: int(1, 1024, 'planner'),
  advanced_ok: flag('advancedOk'),
  autoreport: flag('autoreport'),
  latency_ms: num(0, 10_000, 'latencyMs'),
  boot_ms: num(0, 60_000, 'bootMs'),
  boot_noise: flag('bootNoise'),
  busy_interval_s: num(0, 60, 'busyIntervalS', false),
  record: flag('record'),
  bed: (raw, name) => {
    const m = /^(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)$/.exec(raw);
    const [x, y, z] = m === null ? [NaN, NaN, NaN] : [Number(m[1]), Number(m[2]), Number(m[3])];
    if (!(x > 0 && y > 0 && z > 0) || Math.max(x, y, z) > 10_000) throw fail(name, raw, 'XxYxZ in mm, e.g. 220x220x250');
    return { bed: { X: x, Y: y, Z: z } };
  },
  soft_endstops: flag('softEndstops'),
  emergency_parser: flag('emergencyParser'),
  meatpack: flag('meatpack'),
  residency_s: num(0, 600, 'residencyS'),
  error_rate: num(0, 0.5, 'errorRate'),
  loss_rate: num(0, 0.5, 'lossRate'),
  packed_error_rate: num(0, 0.5, 'packedErrorRate'),
  drop_ok_every: int(0, 1_000_000_000, 'dropOkEvery'),
  duplicate_resend: flag('duplicateResend'),
  reset_after_lines: int(0, 1_000_000_000, 'resetAfterLines'),
  unplug_after_lines: int(0, 1_000_000_000, 'unplugAfterLines'),
  runaway_after_lines: int(0, 1_000_000_000, 'runawayAfterLines'),
  seed: int(0, 2 ** 32 - 1, 'seed'),
};

/** Every option name the URL and CLI accept, in documentation order. */
export const SIMULATOR_OPTION_NAMES: readonly string[] = Object.keys(PARSERS);

/** Parses options over the defaults; throws an Error naming the option for an unknown name or a bad value. */
export function parseSimulatorOptions(params: URLSearchParams | Record<string, string>): SimulatorOptions {
  const entries: Array<[string, string]> =
    params instanceof URLSearchParams ? [...params.entries()] : Object.entries(params);
  const seen = new Set<string>();
  let options: SimulatorOptions = { ...DEFAULT_SIMULATOR_OPTIONS };
  for (const [name, raw] of entries) {
    const parse = PARSERS[name];
    if (parse === undefined) {
      throw new Error(`unknown simulator option "${name}" (known: ${SIMULATOR_OPTION_NAMES.join(', ')})`);
    }
    if (seen.has(name)) throw new Error(`simulator option "${name}" is given twice`);
    seen.add(name);
    options = { ...options, ...parse(raw.trim(), name) };
  }
  return options;
}
