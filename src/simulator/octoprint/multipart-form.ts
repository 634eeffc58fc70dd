// Reads a multipart/form-data body (fields and one file) as OctoPrint's upload endpoint receives it. Small and strict.
export interface FormPart {
  name: string;
  filename: string | null;
  data: Buffer;
}

export function parseMultipart(body: Buffer, contentType: string): FormPart[] | null {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!m) return null;
  const delimiter = Buffer.from(`--${m[1] ?? m[2]}`);
  const parts: FormPart[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) return null;
  for (;;) {
    pos += delimiter.length;
    if (body.subarray(pos, pos + 2).toString() === '--') return parts;
    pos += 2; // CRLF after the delimiter
    const headEnd = body.indexOf('\r\n\r\n', pos);
    if (headEnd < 0) return null;
    const head = body.subarray(pos, headEnd).toString('utf8');
    const next = body.indexOf(delimiter, headEnd + 4);
    if (next < 0) return null;
    const data = body.subarray(headEnd + 4, next - 2); // CRLF before the next delimiter
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    if (name === undefined) return null;
    parts.push({ name, filename: /filename="([^"]*)"/i.exec(head)?.[1] ?? null, data });
    pos = next;
  }
}
