// One HTTP request through node:http rather than fetch: fetch refuses some methods and headers a fuzzer wants to send.
import http from 'node:http';

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  text: string;
}

export function sendRaw(baseUrl: string, req: RawRequest, agent?: http.Agent): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const r = http.request(`${baseUrl}${req.path}`, { method: req.method, headers: req.headers, agent, timeout: 15_000 }, (res) => {
      // A live stream (GET /v1/events) never ends by design: its status and headers are the answer.
      if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, text: '' });
        r.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('timeout', () => r.destroy(new Error('timed out')));
    r.on('error', reject);
    r.end(req.body);
  });
}
