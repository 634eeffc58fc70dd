// The shared rules for client text: TextField() for request schemas, and the defaults every string in every schema gets.
import { Type, type SchemaOptions, type TString } from '@sinclair/typebox';
import type { JsonSchema } from './validation.js';

/** The ajv keyword (see validation.ts) that refuses control, bidi and unpaired-surrogate characters in a string. */
export const TEXT_KEYWORD = 'x-text';
export type TextKind = 'single-line' | 'multi-line';

/** Documented caps (docs/platform.md): names and labels, free text such as notes, and any string without its own cap. */
export const NAME_MAX = 100;
export const LONG_TEXT_MAX = 2000;
export const DEFAULT_STRING_MAX = 4096;

export interface TextFieldOptions extends SchemaOptions {
  /** Required: every text field states its cap. Use NAME_MAX for names, LONG_TEXT_MAX for notes. */
  maxLength: number;
  minLength?: number;
  /** Allow tab, line feed and carriage return (notes, descriptions); off for names and ids. */
  multiline?: boolean;
  pattern?: string;
  format?: string;
}

/**
 * A string field of client text, e.g. `name: TextField({ maxLength: NAME_MAX, minLength: 1 })`: capped, and
 * refusing control characters (all of them, or all but tab/newline when `multiline`), bidirectional controls and
 * unpaired surrogates with a 400 naming the field, the character and where it is.
 */
export function TextField(options: TextFieldOptions): TString {
  const { multiline, ...rest } = options;
  return Type.String({ ...rest, [TEXT_KEYWORD]: multiline ? 'multi-line' : 'single-line' });
}

const isStringSchema = (s: JsonSchema): boolean => s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'));

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'] as const;

/**
 * The schema as it is enforced: every string that does not say otherwise is single-line text, and every string
 * without maxLength (or enum/const) is capped at DEFAULT_STRING_MAX. So a feature's schemas get the rules without
 * opting in; TextField states them explicitly (and is how a field becomes multi-line). Returns a new schema.
 */
export function withTextDefaults(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (isStringSchema(out)) {
    if (!(TEXT_KEYWORD in out)) out[TEXT_KEYWORD] = 'single-line';
    if (out.maxLength === undefined && out.enum === undefined && out.const === undefined) out.maxLength = DEFAULT_STRING_MAX;
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = out[key];
    if (map && typeof map === 'object') {
      out[key] = Object.fromEntries(Object.entries(map as Record<string, JsonSchema>).map(([k, v]) => [k, withTextDefaults(v)]));
    }
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((v: JsonSchema) => withTextDefaults(v));
  }
  for (const key of SUBSCHEMAS) {
    const sub = out[key];
    if (sub && typeof sub === 'object' && !Array.isArray(sub)) out[key] = withTextDefaults(sub as JsonSchema);
  }
  return out;
}
