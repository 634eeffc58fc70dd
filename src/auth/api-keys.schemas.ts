// Request and record schemas of the API keys endpoints, in TypeBox: each TypeScript type is Static<> of its schema.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../http/string-enum.js';
import { TextField } from '../http/text-field.js';
import { KNOWN_SCOPES } from './scopes.js';

/** Names say what a key is for; 100 characters, one line. */
export const KEY_NAME_MAX = 100;
export const SCOPE_MAX = 64;

export const CreateKeyBody = Type.Object(
  {
    name: TextField({ minLength: 1, maxLength: KEY_NAME_MAX, description: 'what the key is for' }),
    scopes: Type.Array(Type.String({ minLength: 1, maxLength: SCOPE_MAX }), {
      minItems: 1,
      maxItems: 32,
      description: `known scopes: ${KNOWN_SCOPES.join(', ')}; only scopes the calling key holds may be granted`,
    }),
  },
  { additionalProperties: false },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const API_KEY_STATUSES = ['active', 'expiring', 'expired', 'revoked'] as const;
/** active; expiring (rolled, still inside its 24 h overlap); expired; revoked. */
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

const NullableTime = (description?: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], description ? { description } : {});

/** The API key record clients see (never the hash). */
export const ApiKeyRecord = Type.Object({
  id: Type.String({ description: 'prefix key_' }),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  prefix: Type.String({ description: 'the first characters of the key, to tell keys apart; never usable' }),
  environment: StringEnum(['live', 'test', 'dev']),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: NullableTime('coalesced: may lag real use by up to a minute after a restart'),
  expires_at: NullableTime('set when the key was rolled: it works until then'),
  revoked_at: NullableTime(),
  status: StringEnum(API_KEY_STATUSES),
});
export type ApiKeyRecord = Static<typeof ApiKeyRecord>;

/** Create and roll responses: the record plus the key value, shown this once. */
export const ApiKeyWithSecret = Type.Object({
  ...ApiKeyRecord.properties,
  key: Type.String({ description: 'the API key itself; returned only in this response' }),
});
