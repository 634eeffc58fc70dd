// Request and record schemas of /v1/sessions (browser sign-in), in TypeBox: each TypeScript type is Static<> of its schema.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../http/string-enum.js';
import { NAME_MAX, TextField } from '../http/text-field.js';
import { PASSWORD_MAX_LENGTH } from './password-policy.js';
import { ROLES } from './users.service.js';

/** Longer than any key this server mints (svc_<env>_ and up to 128 characters); a longer string is a 400, not a guess. */
export const SIGN_IN_KEY_MAX = 200;

/** One object with optional fields rather than a oneOf, so a wrong combination gets a sentence, not ajv's branch errors. */
export const SignInBody = Type.Object(
  {
    email: Type.Optional(TextField({ format: 'email', maxLength: 254, description: 'with `password`: the address the user was invited with' })),
    password: Type.Optional(
      TextField({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, description: 'with `email`: the password set when accepting the invitation' }),
    ),
    api_key: Type.Optional(
      TextField({ minLength: 1, maxLength: SIGN_IN_KEY_MAX, description: 'instead of email and password: an API key; the session acts with its scopes' }),
    ),
  },
  { additionalProperties: false, description: 'either `email` and `password`, or `api_key`' },
);
export type SignInBody = Static<typeof SignInBody>;

const Time = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/** A session as the dashboard sees it (never the token, which only the cookie holds). */
export const SessionRecord = Type.Object({
  id: Type.String({ description: 'prefix ses_' }),
  user: Type.Union(
    [Type.Object({ id: Type.String(), email: Type.String(), name: Type.String({ maxLength: NAME_MAX }), role: StringEnum(ROLES) }), Type.Null()],
    { description: 'the signed-in user (password sign-in); null for a session made from an API key' },
  ),
  key: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()], {
    description: 'the API key the session was made from; null for a password sign-in',
  }),
  scopes: Type.Array(Type.String(), { description: "what the session may do: the user's role as scopes, or the key's scopes" }),
  created_at: Time(),
  expires_at: Time('sign-in plus the organization session_lifetime_hours'),
  idle_expires_at: Time('the last request plus the organization session_idle_minutes; each request moves it'),
});
export type SessionRecord = Static<typeof SessionRecord>;

/** The body of POST /v1/sessions and GET /v1/sessions/current. */
export const SessionResponse = Type.Object({ session: SessionRecord });
