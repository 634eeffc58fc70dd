// Keeps README.md short and true: the set-up commands on top, under 400 lines, well-formed JSON, the flags documented in docs/setup.md, only scripts and commands that exist.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { commands } from '../../src/cli/commands.js';
import { CONFIG_DEFAULTS, envVarFor } from '../../src/config.js';

const readme = readFileSync('README.md', 'utf8');
const guides = readdirSync('docs').filter((f) => f.endsWith('.md') && f !== 'api.md').map((f) => path.join('docs', f));
const allText = [readme, ...guides.map((f) => readFileSync(f, 'utf8'))].join('\n');
const setup = readFileSync('docs/setup.md', 'utf8');

/** Rows of the markdown table that follows `heading` in `text`, as trimmed cells without backticks. */
function tableAfter(text: string, heading: string): string[][] {
  const start = text.indexOf(heading);
  assert.ok(start >= 0, `has "${heading}"`);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split('|').map((c) => c.trim().replace(/`/g, '')));
  }
  return rows;
}

describe('README.md', () => {
  it('starts with exactly the two set-up commands, start then test', () => {
    assert.ok(readme.startsWith('```sh\nnpm ci && npm start -- --demo 3\n```\n\n```sh\nnpm ci && npm test\n```\n'));
  });

  it('is read in five minutes: under 400 lines', () => {
    const lines = readme.split('\n').length;
    assert.ok(lines < 400, `README.md has ${lines} lines; move detail into a guide in docs/`);
  });

  it('shows only well-formed JSON in its examples, and so do the guides', () => {
    for (const [, block] of allText.matchAll(/```json\n([\s\S]*?)```/g)) {
      assert.doesNotThrow(() => JSON.parse(block!), `valid JSON:\n${block}`);
    }
  });

  it('documents every serve flag with its environment variable and default (docs/setup.md)', () => {
    const rows = tableAfter(setup, '| Flag | Environment variable |');
    const defaults: Record<string, string> = {
      host: CONFIG_DEFAULTS.host,
      port: String(CONFIG_DEFAULTS.port),
      'data-dir': CONFIG_DEFAULTS.dataDir,
      env: CONFIG_DEFAULTS.env,
    };
    for (const [flag, value] of Object.entries(defaults)) {
      const row = rows.find((r) => r[0]?.split(' ')[0] === `--${flag}`);
      assert.ok(row, `docs/setup.md documents --${flag}`);
      assert.equal(row[1], envVarFor(flag));
      assert.equal(row[2], value, `default of --${flag}`);
    }
    const envOnly: Record<string, string> = {
      PRINTFARM_LOG_LEVEL: CONFIG_DEFAULTS.logLevel,
      PRINTFARM_TRUST_PROXY: CONFIG_DEFAULTS.trustProxy ? '1' : '0',
    };
    for (const [variable, value] of Object.entries(envOnly)) {
      const row = rows.find((r) => r[1] === variable);
      assert.ok(row, `docs/setup.md documents ${variable}`);
      assert.equal(row[0], '', `${variable} has no flag`);
      assert.equal(row[2], value, `default of ${variable}`);
    }
  });

  it('mentions only npm scripts and CLI commands that exist (README and guides)', () => {
    for (const [, script] of allText.matchAll(/npm run ([a-z:-]+)/g)) {
      assert.ok(script! in pkg.scripts, `package.json has script "${script}"`);
    }
    const names = new Set(commands.map((c) => c.name));
    for (const [, command] of allText.matchAll(/`printfarm ([a-z]+)[ `]/g)) {
      assert.ok(names.has(command!), `CLI has command "${command}"`);
    }
  });
});
