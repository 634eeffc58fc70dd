// ajv, configured once: compiles request schemas and turns ajv errors into messages that name the field and the rule.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { badRequest, quoteInput } from '../errors.js';
import { describeUnsafeCharacter, findUnsafeCharacter, type UnsafeCharacter } from '../text-safety.js';
import { TEXT_KEYWORD, withTextDefaults } from './text-field.js';

// ajv-formats is CommonJS with a default export; under ESM interop it may arrive wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;

export type JsonSchema = Record<string, unknown>;

// verbose: errors carry the offending value, so a message can say what was sent instead.
const ajv = new Ajv({ allErrors: false, strict: true, useDefaults: false, coerceTypes: false, verbose: true });
addFormats(ajv);

// Client text may not carry control, bidirectional or unpaired-surrogate characters; 'multi-line' allows tab and newlines.
const checkText = Object.assign(
  (kind: string, data: string): boolean => {
    const unsafe = findUnsafeCharacter(data, kind === 'multi-line');
    checkText.errors = unsafe ? [{ keyword: TEXT_KEYWORD, message: describeUnsafeCharacter(unsafe), params: { unsafe } }] : undefined;
    return unsafe === null;
  },
  { errors: undefined as Partial<ErrorObject>[] | undefined },
);
ajv.addKeyword({
  keyword: TEXT_KEYWORD,
  type: 'string',
  schemaType: 'string',
  errors: true,
  metaSchema: { enum: ['single-line', 'multi-line'] },
  validate: checkText,
});

// Memoisation, not a service locator: the same schema object always compiles to the same pure function, and a route's
// schema is compiled once instead of on every request. Keyed weakly, so schemas of apps that are gone are dropped.
const cache = new WeakMap<JsonSchema, ValidateFunction>();

export function compileSchema<T>(schema: JsonSchema): ValidateFunction<T> {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(withTextDefaults(schema));
    cache.set(schema, fn);
  }
  return fn as ValidateFunction<T>;
}

/** How a JSON value is named in a message: "null", "an array", "a string"... */
export function describeJsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const kind = typeof value === 'object' ? 'object' : typeof value;
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
}

/** "name", "material.type", "tags[2]" from an ajv instance path like /material/type. */
function fieldName(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

/** One human message for the first ajv error, e.g. `name: must be a string` or `unknown field "colour"`. */
export function describeAjvError(err: ErrorObject, where: 'body' | 'query'): string {
  const field = fieldName(err.instancePath);
  const at = (f: string): string => (f ? `${where === 'query' ? 'query parameter ' : ''}${f}` : where === 'body' ? 'body' : 'query');
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'additionalProperties': {
      const extra = String(p.additionalProperty);
      const full = field ? `${field}.${extra}` : extra;
      return where === 'query' ? `unknown query parameter ${quoteInput(full)}` : `unknown field ${quoteInput(full)}`;
    }
    case 'required': {
      const missing = String(p.missingProperty);
      return `${at(field ? `${field}.${missing}` : missing)}: is required`;
    }
    case 'type': {
      const wanted = field === '' && where === 'body' && p.type === 'object' ? 'a JSON object' : `${/^[aeiou]/.test(String(p.type)) ? 'an' : 'a'} ${String(p.type)}`;
      return `${at(field)}: must be ${wanted}, not ${describeJsonKind(err.data)}`;
    }
    case 'enum':
      return `${at(field)}: must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'format':
      return `${at(field)}: must be a valid ${String(p.format)}`;
    case 'minLength':
      return `${at(field)}: must be at least ${String(p.limit)} characters long`;
    case 'maxLength':
      return `${at(field)}: must be at most ${String(p.limit)} characters long`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${at(field)}: must be ${String(p.comparison)} ${String(p.limit)}`;
    case 'minItems':
      return `${at(field)}: must have at least ${String(p.limit)} items`;
    case 'maxItems':
      return `${at(field)}: must have at most ${String(p.limit)} items`;
    case 'minProperties':
      return `${at(field)}: must have at least ${String(p.limit)} field${p.limit === 1 ? '' : 's'}`;
    case 'uniqueItems':
      return `${at(field)}: must not contain duplicates`;
    case TEXT_KEYWORD:
      return `${at(field)}: ${describeUnsafeCharacter(p.unsafe as UnsafeCharacter)}`;
    case 'pattern':
      return `${at(field)}: must match the pattern ${String(p.pattern)}`;
    default:
      return `${at(field)}: ${err.message ?? 'is invalid'} (${err.keyword})`;
  }
}

/** Validates and returns the value typed, or throws 400 invalid_request naming the field and the rule. */
export function validateOrThrow<T>(schema: JsonSchema, value: unknown, where: 'body' | 'query'): T {
  const fn = compileSchema<T>(schema);
  if (!fn(value)) {
    const first = fn.errors?.[0];
    throw badRequest(first ? describeAjvError(first, where) : `${where} is invalid`);
  }
  return value as T;
}
