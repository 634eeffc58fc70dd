// Renders the OpenAPI document as one Markdown page (docs/api.md): conventions and catalogues, an index, then each feature's routes with their examples.
type Obj = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const cell = (text: unknown): string => String(text ?? '').replace(/\|/g, '\\|').replace(/\n+/g, ' ');
const json = (value: unknown): string => ['```json', JSON.stringify(value, null, 2), '```'].join('\n');
/** The heading of a route, whose anchor the guides link to (`#get-v1printers`). */
const routeHeading = (method: string, path: string): string => `### \`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}\``;

function operationMarkdown(method: string, path: string, op: Obj): string {
  const out = [routeHeading(method, path), '', `**${op.summary}**`, '', op.description ?? ''];
  const params = (op.parameters ?? []) as Obj[];
  if (params.length > 0) {
    out.push('', '| Parameter | In | Required | Description |', '|---|---|---|---|');
    for (const p of params) out.push(`| \`${p.name}\` | ${p.in} | ${p.required ? 'yes' : 'no'} | ${cell(p.description)} |`);
  }
  const body = op.requestBody?.content?.['application/json']?.schema as Obj | undefined;
  if (body?.examples?.[0] !== undefined) out.push('', 'Example body:', '', json(body.examples[0]));
  out.push('', '| Status | Answer |', '|---|---|');
  const examples: string[] = [];
  for (const [status, answer] of Object.entries(op.responses ?? {}) as [string, Obj][]) {
    const description = answer.$ref ? String(answer.$ref).split('/').pop() : answer.description;
    out.push(`| ${status} | ${cell(description)} |`);
    const example = answer.content?.['application/json']?.schema?.examples?.[0];
    if (example !== undefined) examples.push(`Example answer (${status}):`, '', json(example), '');
  }
  if (examples.length > 0) out.push('', ...examples);
  return out.join('\n').trimEnd();
}

/** The document names guides as plain text (/docs cannot follow a file link); beside them in docs/, they become links. */
const linkGuides = (markdown: string): string => markdown.replace(/\(guide: docs\/([a-z-]+\.md)\)/g, '([guide]($1))');

export function apiMarkdown(doc: Obj): string {
  const ops: { tag: string; method: string; path: string; op: Obj }[] = [];
  for (const [path, item] of Object.entries(doc.paths as Obj)) {
    for (const method of METHODS) if (item[method]) ops.push({ tag: item[method].tags?.[0] ?? 'Other', method, path, op: item[method] });
  }
  const out = [
    `# ${doc.info.title} (${doc.info.version})`,
    '',
    '<!-- Written by `npm run docs` from the OpenAPI document (GET /v1/openapi.json); a test fails when it is stale. Do not edit. -->',
    '',
    doc.info.description,
    '',
    '## Endpoints',
    '',
    '| Method | Path | Summary |',
    '|---|---|---|',
    ...ops.map(({ method, path, op }) => `| ${method.toUpperCase()} | \`${path}\` | ${cell(op.summary)} |`),
  ];
  for (const tag of doc.tags as Obj[]) {
    out.push('', `## ${tag.name}`, '');
    if (tag.description) out.push(tag.description, '');
    for (const o of ops.filter((x) => x.tag === tag.name)) out.push(operationMarkdown(o.method, o.path, o.op), '');
  }
  return `${linkGuides(out.join('\n')).replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
