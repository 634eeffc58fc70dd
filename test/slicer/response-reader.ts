// Reads an HTTP/1.1 answer from raw socket bytes: 1xx interim heads, the final head, and a Content-Length, chunked or
// until-close body.

export interface ParsedResponse {
  status: number;
  reason: string;
  /** In arrival order, names as the server spelled them. */
  headers: Array<[string, string]>;
  body: Buffer;
  /** Statuses of the 1xx interim answers that came before the final one. */
  interim: number[];
}

export interface ReaderEvent {
  sawContinue: boolean;
  finalHeadSeen: boolean;
  done?: ParsedResponse;
}

interface Head {
  status: number;
  reason: string;
  headers: Array<[string, string]>;
}

export class ResponseReader {
  private buf = Buffer.alloc(0);
  private head: Head | undefined;
  private readonly interim: number[] = [];

  /** `noBody`: the request was HEAD, so the answer has no body whatever its headers say. */
  constructor(private readonly noBody = false) {}

  push(chunk: Buffer): ReaderEvent {
    this.buf = Buffer.concat([this.buf, chunk]);
    let sawContinue = false;
    while (!this.head) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return { sawContinue, finalHeadSeen: false };
      const head = parseHead(this.buf.subarray(0, end).toString('latin1'));
      this.buf = this.buf.subarray(end + 4);
      if (head.status >= 100 && head.status < 200) {
        this.interim.push(head.status);
        if (head.status === 100) sawContinue = true;
      } else this.head = head;
    }
    const body = this.completeBody(false);
    return { sawContinue, finalHeadSeen: true, done: body ? this.result(body) : undefined };
  }

  /** The connection closed: the answer if it is complete (an until-close body ends here). */
  end(): ParsedResponse | undefined {
    if (!this.head) return undefined;
    const body = this.completeBody(true);
    return body ? this.result(body) : undefined;
  }

  private result(body: Buffer): ParsedResponse {
    const head = this.head as Head;
    return { ...head, body, interim: this.interim };
  }

  private completeBody(closed: boolean): Buffer | undefined {
    const head = this.head as Head;
    if (this.noBody || head.status === 204 || head.status === 304) return Buffer.alloc(0);
    const te = value(head, 'transfer-encoding');
    if (te && /chunked/i.test(te)) return dechunk(this.buf);
    const cl = value(head, 'content-length');
    if (cl !== undefined) {
      const n = Number(cl);
      return this.buf.length >= n ? this.buf.subarray(0, n) : undefined;
    }
    return closed ? this.buf : undefined;
  }
}

function value(head: Head, name: string): string | undefined {
  return head.headers.find(([k]) => k.toLowerCase() === name)?.[1];
}

function parseHead(text: string): Head {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine);
  if (!m) throw new Error(`not an HTTP/1.x status line: ${JSON.stringify(statusLine)}`);
  const headers = lines.map((l): [string, string] => {
    const colon = l.indexOf(':');
    return [l.slice(0, colon), l.slice(colon + 1).trim()];
  });
  return { status: Number(m[1]), reason: m[2] ?? '', headers };
}

/** The decoded body once the terminating zero-size chunk has arrived, else undefined. */
function dechunk(buf: Buffer): Buffer | undefined {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) throw new Error('bad chunk size line');
    if (size === 0) return buf.indexOf('\r\n\r\n', lineEnd) >= 0 ? Buffer.concat(out) : undefined; // after trailers, if any
    const start = lineEnd + 2;
    if (buf.length < start + size + 2) return undefined;
    out.push(buf.subarray(start, start + size));
    at = start + size + 2;
  }
}
