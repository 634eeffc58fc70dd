// The .deb's control file: what it depends on, and that it recommends the camera capture programs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { controlFile } from '../../scripts/deb/deb-package.js';

describe('deb control file', () => {
  it('recommends ustreamer and ffmpeg (cameras) without depending on them', () => {
    const control = controlFile('1.2.3', 'x64', 1000);
    assert.match(control, /^Recommends: ustreamer, ffmpeg$/m);
    assert.match(control, /^Depends: adduser, libc6 \(>= 2\.34\)$/m);
  });
});
