// Joins a feature's reference text and examples (its *.docs.ts) to its RouteDefs, so the OpenAPI document carries them.
import type { AnyRouteDef } from './route.js';
import type { JsonSchema } from './validation.js';

/** The reference of one route: Markdown lines, and an example of its JSON body and of its success answer. */
export interface RouteDoc {
  description: readonly string[];
  body?: unknown;
  response?: unknown;
}

/** Keyed by "METHOD /path" exactly as the RouteDef spells them. */
export type RouteDocs = Record<string, RouteDoc>;

const withExample = (schema: JsonSchema, example: unknown): JsonSchema =>
  // A schema that already shows examples keeps its own: the route's author chose them.
  schema.examples ? schema : { ...schema, examples: [example] };

/**
 * Each route gets its doc's text after its own description, and the examples on its body schema and on the schema
 * of each of its 2xx answers. A doc that names no route of the list is a typo or a removed route: it throws, so the text
 * cannot outlive its route unseen.
 */
export function withDocs<R extends AnyRouteDef>(docs: RouteDocs, routes: R[]): R[] {
  const keys = new Set(routes.map((r) => `${r.method} ${r.path}`));
  for (const key of Object.keys(docs)) if (!keys.has(key)) throw new Error(`route docs name ${key}, which is not among these routes`);
  return routes.map((route) => {
    const doc = docs[`${route.method} ${route.path}`];
    if (!doc) return route;
    const description = [route.description, doc.description.join('\n')].filter(Boolean).join('\n\n');
    const body = route.body && doc.body !== undefined ? withExample(route.body, doc.body) : route.body;
    const responses = { ...route.responses };
    for (const [status, answer] of Object.entries(route.responses)) {
      if (status.startsWith('2') && answer.schema && doc.response !== undefined) responses[Number(status)] = { ...answer, schema: withExample(answer.schema, doc.response) };
    }
    return { ...route, description, body, responses };
  });
}
