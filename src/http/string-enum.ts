// StringEnum: a TypeBox string enum written as JSON Schema `enum` (not anyOf of consts), so a 400 lists the allowed values.
import { Type, type SchemaOptions, type TUnsafe } from '@sinclair/typebox';

/** e.g. `plan: StringEnum(['free', 'pro', 'enterprise'])`; Static<> is the union of the values. */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}
