// Loads every firmware profile shipped in firmware-profiles/, validates each against its JSON Schema at start, and picks one.
import { Ajv, type ErrorObject } from 'ajv';
import type { FirmwareProfile } from '../protocol/firmware-profile.js';
import schema from '../../firmware-profiles/firmware-profile.schema.json' with { type: 'json' };
import generic from '../../firmware-profiles/generic.json' with { type: 'json' };
import marlin from '../../firmware-profiles/marlin.json' with { type: 'json' };
import prusa from '../../firmware-profiles/prusa.json' with { type: 'json' };
import reprapfirmware from '../../firmware-profiles/reprapfirmware.json' with { type: 'json' };
import klipper from '../../firmware-profiles/klipper.json' with { type: 'json' };
import smoothieware from '../../firmware-profiles/smoothieware.json' with { type: 'json' };
import repetier from '../../firmware-profiles/repetier.json' with { type: 'json' };

const ajv = new Ajv({ allErrors: true, strict: true });
const validate = ajv.compile<FirmwareProfile>(schema);

const REGEX_FIELDS = ['firmwareNamePatterns', 'resetPatterns', 'fatalErrorPatterns', 'warningPatterns'] as const;

function describe(e: ErrorObject): string {
  const where = e.instancePath === '' ? '(top level)' : e.instancePath.slice(1).replace(/\//g, '.');
  if (e.keyword === 'additionalProperties') return `${where}: unknown field '${String(e.params.additionalProperty)}'`;
  if (e.keyword === 'required') return `${where === '(top level)' ? '' : where + '.'}${String(e.params.missingProperty)}: is required`;
  if (e.keyword === 'enum') return `${where}: must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  return `${where}: ${e.message ?? e.keyword}`;
}

function checkRegexes(file: string, field: string, sources: readonly string[]): void {
  sources.forEach((src, i) => {
    try {
      new RegExp(src, 'i');
    } catch (err) {
      throw new Error(`firmware profile ${file}: ${field}[${i}] is not a valid regular expression: ${(err as Error).message}`);
    }
  });
}

/** Validates one parsed profile file; throws an Error naming the file and every offending field. */
export function validateProfile(data: unknown, file: string): FirmwareProfile {
  if (!validate(data)) {
    const problems = (validate.errors ?? []).map(describe).join('; ');
    throw new Error(`firmware profile ${file} is invalid: ${problems}`);
  }
  const p = data;
  for (const f of REGEX_FIELDS) checkRegexes(file, f, p[f]);
  if (p.readyPattern) checkRegexes(file, 'readyPattern', [p.readyPattern]);
  checkRegexes(file, 'resend.patterns', p.resend.patterns);
  checkRegexes(file, 'resend.skipPatterns', p.resend.skipPatterns);
  for (const [field, list] of [['resend.patterns', p.resend.patterns], ['resend.skipPatterns', p.resend.skipPatterns]] as const) {
    list.forEach((src, i) => {
      if (new RegExp(`${src}|`).exec('')!.length < 2) {
        throw new Error(`firmware profile ${file}: ${field}[${i}] needs a capture group for the line number`);
      }
    });
  }
  if (p.timeouts.longMs < p.timeouts.shortMs) {
    throw new Error(`firmware profile ${file}: timeouts.longMs (${p.timeouts.longMs}) must not be below timeouts.shortMs (${p.timeouts.shortMs})`);
  }
  const { $schema: _ignored, ...profile } = p as FirmwareProfile & { $schema?: string };
  return Object.freeze(profile) as FirmwareProfile;
}

const FILES: ReadonlyArray<[string, unknown]> = [
  ['generic.json', generic],
  ['marlin.json', marlin],
  ['prusa.json', prusa],
  ['reprapfirmware.json', reprapfirmware],
  ['klipper.json', klipper],
  ['smoothieware.json', smoothieware],
  ['repetier.json', repetier],
];

function loadAll(): Map<string, FirmwareProfile> {
  const byName = new Map<string, FirmwareProfile>();
  for (const [file, data] of FILES) {
    const profile = validateProfile(data, file);
    if (byName.has(profile.name)) throw new Error(`firmware profile ${file}: name '${profile.name}' is used twice`);
    byName.set(profile.name, profile);
  }
  return byName;
}

/** Every profile, validated at module load: a broken profile stops the program at start, not mid-print. */
const PROFILES = loadAll();

// Specific families first: Prusa-Firmware says "based on Marlin", so Marlin's catch-all pattern comes last.
const MATCH_ORDER = ['prusa', 'klipper', 'reprapfirmware', 'smoothieware', 'repetier', 'marlin'];
const MATCHERS: ReadonlyArray<[RegExp[], FirmwareProfile]> = MATCH_ORDER.map((name) => {
  const p = PROFILES.get(name)!;
  return [p.firmwareNamePatterns.map((s) => new RegExp(s, 'i')), p];
});

export const GENERIC_PROFILE_NAME = 'generic';

export function profileNames(): string[] {
  return [...PROFILES.keys()];
}

export function allProfiles(): FirmwareProfile[] {
  return [...PROFILES.values()];
}

/** The profile a connection URL names (`?firmware=klipper`); throws naming the known profiles otherwise. */
export function profileByName(name: string): FirmwareProfile {
  const p = PROFILES.get(name.trim().toLowerCase());
  if (!p) throw new Error(`unknown firmware profile '${name}' (known: ${profileNames().join(', ')})`);
  return p;
}

/**
 * The profile as this board's M115 capabilities allow: a Marlin built without EMERGENCY_PARSER (Cap:EMERGENCY_PARSER:0)
 * reads M108 only in its turn, after the wait it was meant to break, so it has no break command.
 */
export function withCapabilities(profile: FirmwareProfile, capabilities: Readonly<Record<string, boolean>>): FirmwareProfile {
  if (profile.breakWait !== null && capabilities['EMERGENCY_PARSER'] === false) return Object.freeze({ ...profile, breakWait: null });
  return profile;
}

/** The profile for an M115 FIRMWARE_NAME; unknown firmware gets the safe generic profile (ping-pong, every resend form). */
export function profileForFirmwareName(firmwareName: string): FirmwareProfile {
  for (const [patterns, profile] of MATCHERS) {
    if (patterns.some((re) => re.test(firmwareName))) return profile;
  }
  return PROFILES.get(GENERIC_PROFILE_NAME)!;
}
