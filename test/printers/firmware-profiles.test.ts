// Firmware profiles: all shipped ones load and validate; a broken one is rejected naming the file and the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allProfiles, profileByName, profileForFirmwareName, validateProfile, withCapabilities } from '../../src/printers/firmware-profiles.js';

test('every family is shipped and valid', () => {
  const names = allProfiles().map((p) => p.name).sort();
  assert.deepEqual(names, ['generic', 'klipper', 'marlin', 'prusa', 'repetier', 'reprapfirmware', 'smoothieware']);
  for (const p of allProfiles()) {
    for (const key of ['pause', 'resume', 'cancel', 'cooldown'] as const) assert.ok(p.scripts[key].length > 0, `${p.name} ${key}`);
  }
  assert.equal(profileByName('generic').flowControl, 'ping-pong');
  assert.equal(profileByName('klipper').checksum, 'none');
  assert.equal(profileByName('Marlin').name, 'marlin');
  assert.throws(() => profileByName('grbl'), /unknown firmware profile 'grbl' \(known: generic, marlin/);
  assert.equal(profileForFirmwareName('Marlin 2.0.9.3').name, 'marlin');
});

test('a broken profile is rejected with a message naming the file and the field', () => {
  const good = JSON.parse(JSON.stringify(profileByName('marlin'))) as Record<string, unknown>;
  const broken = { ...good, rxBufferBytes: 'lots', timeouts: { ...(good.timeouts as object), shortMs: -1 } };
  assert.throws(() => validateProfile(broken, 'broken.json'), (err: Error) => {
    assert.match(err.message, /broken\.json/);
    assert.match(err.message, /rxBufferBytes: must be integer/);
    assert.match(err.message, /timeouts\.shortMs: must be >= 100/);
    return true;
  });
  const { scripts: _s, ...noScripts } = good;
  assert.throws(() => validateProfile(noScripts, 'x.json'), /x\.json is invalid: scripts: is required/);
  assert.throws(() => validateProfile({ ...good, fatalErrorPatterns: ['(unclosed'] }, 'bad-re.json'), /bad-re\.json: fatalErrorPatterns\[0\] is not a valid regular expression/);
  assert.throws(() => validateProfile({ ...good, readyPattern: '[unclosed' }, 'bad-ready.json'), /bad-ready\.json: readyPattern\[0\] is not a valid regular expression/);
  assert.throws(() => validateProfile({ ...good, readyPattern: '' }, 'empty-ready.json'), /empty-ready\.json is invalid: readyPattern/);
  assert.throws(() => validateProfile({ ...good, resend: { ...(good.resend as object), patterns: ['^Resend: \\d+'] } }, 'nogroup.json'), /resend\.patterns\[0\] needs a capture group/);
  assert.throws(() => validateProfile({ ...good, extra: 1 }, 'extra.json'), /unknown field 'extra'/);
  assert.equal(validateProfile(good, 'copy.json').name, 'marlin');
});

test('blocking waits and the break command: Marlin breaks heat-ups with M108, Klipper cannot; M115 can take it away', () => {
  const marlin = profileByName('marlin');
  assert.deepEqual(marlin.breakWait, { command: 'M108', breaks: ['M109', 'M190', 'M191'] });
  for (const w of ['M109', 'M190', 'G4', 'M400']) assert.ok(marlin.blockingWaits.includes(w), w);
  assert.equal(marlin.resumeTemperatureWindow, 3);
  assert.equal(profileByName('klipper').breakWait, null);
  // A Marlin built without EMERGENCY_PARSER reads M108 only after the wait: no break command for it.
  assert.equal(withCapabilities(marlin, { EMERGENCY_PARSER: false }).breakWait, null);
  assert.equal(withCapabilities(marlin, { EMERGENCY_PARSER: true }), marlin);
  assert.equal(withCapabilities(marlin, {}), marlin, 'no capability report: the profile stands');
  const good = JSON.parse(JSON.stringify(marlin)) as Record<string, unknown>;
  assert.throws(() => validateProfile({ ...good, breakWait: { command: 'M108' } }, 'bw.json'), /bw\.json is invalid/);
});
