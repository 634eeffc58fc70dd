// Client text: control, bidi and unpaired-surrogate characters refused with a 400 naming the field; every string capped; echoes cut to 100 characters.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { AppError, quoteInput } from '../../src/errors.js';
import { errorResponseBody } from '../../src/http/error-middleware.js';
import { DEFAULT_STRING_MAX, TextField } from '../../src/http/text-field.js';
import { validateOrThrow } from '../../src/http/validation.js';
import { findUnsafeCharacter } from '../../src/text-safety.js';
import { bearer } from '../helpers/test-app.js';
import { useAdminApp } from './admin-app.js';

const messageOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError && err.status === 400, String(err));
    return err.message;
  }
  return 'accepted';
};

describe('text rules in the validation layer', () => {
  const schema = Type.Object(
    {
      name: Type.Optional(TextField({ maxLength: 10 })),
      note: Type.Optional(TextField({ maxLength: 50, multiline: true })),
      plain: Type.Optional(Type.String()),
      tags: Type.Optional(Type.Array(Type.String({ maxLength: 5 }))),
    },
    { additionalProperties: false },
  );
  const check = (body: object): string => messageOf(() => validateOrThrow(schema, body, 'body'));

  it('a table of values and the 400 each gets (or acceptance)', () => {
    const cases: [object, string][] = [
      [{ name: 'Plain name' }, 'accepted'],
      [{ name: 'Ünïcödé 😀' }, 'accepted'],
      [{ name: 'a\u0000b' }, 'name: must not contain control characters (U+0000 at character 2)'],
      [{ name: '\u202eevil' }, 'name: must not contain bidirectional control characters (U+202E at character 1)'],
      [{ name: 'x\u2066y' }, 'name: must not contain bidirectional control characters (U+2066 at character 2)'],
      [{ name: 'a\tb' }, 'name: must not contain control characters (U+0009 at character 2)'],
      [{ name: 'a\nb' }, 'name: must be a single line (U+000A at character 2)'],
      [{ name: '\u0085' }, 'name: must not contain control characters (U+0085 at character 1)'],
      [{ name: 'ok\ud800' }, 'name: must be valid Unicode text (an unpaired surrogate U+D800 at character 3)'],
      [{ note: 'line one\n\tline two\r\n' }, 'accepted'],
      [{ note: 'bell\u0007' }, 'note: must not contain control characters (U+0007 at character 5)'],
      [{ note: 'a\u202db' }, 'note: must not contain bidirectional control characters (U+202D at character 2)'],
      // A plain Type.String() gets the same rules and the default cap without opting in.
      [{ plain: 'a\u0000' }, 'plain: must not contain control characters (U+0000 at character 2)'],
      [{ plain: 'x'.repeat(DEFAULT_STRING_MAX) }, 'accepted'],
      [{ plain: 'x'.repeat(DEFAULT_STRING_MAX + 1) }, `plain: must be at most ${DEFAULT_STRING_MAX} characters long`],
      [{ tags: ['ok', 'b\u202e'] }, 'tags[1]: must not contain bidirectional control characters (U+202E at character 2)'],
      [{ name: 'x'.repeat(11) }, 'name: must be at most 10 characters long'],
      [{ ['k'.repeat(5000)]: 1 }, `unknown field "${'k'.repeat(100)}…" (5000 characters)`],
    ];
    for (const [body, expected] of cases) assert.equal(check(body), expected, JSON.stringify(body).slice(0, 60));
  });

  it('finds the first unsafe character by code point position', () => {
    assert.deepEqual(findUnsafeCharacter('😀😀\u0000', false), { kind: 'control', codePoint: 0, position: 3 });
    assert.equal(findUnsafeCharacter('a\u2028b', true), null);
    assert.equal(findUnsafeCharacter('a\u2028b', false)?.kind, 'line-break');
  });

  it('quoteInput: quotes, escapes unsafe characters and cuts at 100 characters', () => {
    assert.equal(quoteInput('a"b'), '"a\\"b"');
    assert.equal(quoteInput('a\u0000\u202e'), '"a\\u0000\\u202e"');
    assert.equal(quoteInput('é'.repeat(101)), `"${'é'.repeat(100)}…" (101 characters)`);
  });
});

describe('text rules on the real endpoints', () => {
  const app = useAdminApp();
  const send = async (method: string, path: string, body?: unknown): Promise<{ status: number; message: string }> => {
    const init = { method, headers: bearer(app.admin, body !== undefined), body: body === undefined ? undefined : JSON.stringify(body) };
    const res = await app.t.request(path, init);
    const json = (await res.json()) as { error?: { message: string } };
    return { status: res.status, message: json.error?.message ?? '' };
  };

  it('NUL and bidi overrides in names are 400 naming the field (they were stored before)', async () => {
    assert.deepEqual(await send('POST', '/v1/api-keys', { name: 'ci\u0000key', scopes: ['jobs:read'] }), {
      status: 400,
      message: 'name: must not contain control characters (U+0000 at character 3)',
    });
    assert.deepEqual(await send('POST', '/v1/api-keys', { name: 'gpj.\u202eexe', scopes: ['jobs:read'] }), {
      status: 400,
      message: 'name: must not contain bidirectional control characters (U+202E at character 5)',
    });
    assert.equal((await send('PATCH', '/v1/organization', { name: 'Farm\u2067' })).status, 400);
    assert.match((await send('POST', '/v1/users/invite', { email: 'a@example.com', role: 'viewer', name: 'x\u0001' })).message, /^name: must not contain control/);
    assert.equal((await send('GET', '/v1/users?email=a%00b')).message, 'query parameter email: must not contain control characters (U+0000 at character 2)');
  });

  it('a 5,000-character id is not echoed back whole in the 404', async () => {
    const id = 'key_' + 'x'.repeat(4996);
    for (const [method, path] of [['POST', `/v1/api-keys/${id}/roll`], ['GET', `/v1/users/usr_${'y'.repeat(4996)}`]] as const) {
      const { status, message } = await send(method, path);
      assert.equal(status, 404);
      assert.ok(message.length < 160, `${message.length} characters: ${message.slice(0, 50)}`);
      assert.match(message, /…"? \(\d+ characters\)/);
    }
    assert.equal((await send('DELETE', `/v1/api-keys/${id}`)).message, `API key "${id.slice(0, 100)}…" (5000 characters) not found`);
  });
});

describe('error bodies never carry raw control or bidi characters', () => {
  it('escapes them whatever a message was built from', () => {
    const body = errorResponseBody(new AppError(404, 'resource_not_found', 'printer a\u0000\u202eb not found', 'x\u0007'));
    assert.equal(body.error.message, 'printer a\\u0000\\u202eb not found');
    assert.equal(body.error.details, 'x\\u0007');
  });
});
