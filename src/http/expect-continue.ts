// `Expect: 100-continue` answered only when the handler starts reading the body: a request refused before that (a
// wrong key, a folder that names no printer, a file over the size limit) gets its answer without the client sending
// gigabytes first. PrusaSlicer's libcurl asks so for every upload over 1 MB.
import type http from 'node:http';

/** Sends `100 Continue` the first time anything reads `req` (pipe, a data or readable listener, resume). */
export function continueOnRead(req: http.IncomingMessage, res: http.ServerResponse): void {
  let asked = false;
  const send = (): void => {
    if (asked || res.headersSent || res.writableEnded) return;
    asked = true;
    res.writeContinue();
  };
  req.once('resume', send);
  const onListener = (event: string | symbol): void => {
    if (event === 'data' || event === 'readable') send();
  };
  req.on('newListener', onListener);
  res.once('close', () => req.off('newListener', onListener));
}

/** Routes a server's Expect: 100-continue requests through the normal 'request' listeners, continuing on first read. */
export function continueWhenRead(server: http.Server): void {
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    continueOnRead(req, res);
    server.emit('request', req, res);
  });
}
