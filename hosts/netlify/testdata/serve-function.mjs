// Serves a Netlify Function (its default export, a Request handler) on a
// free port of 127.0.0.1 with Node.js alone, and prints "PORT n" once it
// listens: the function's answers as they are, with no Netlify proxy in
// front. Usage: node serve-function.mjs FUNCTION.mjs
import http from 'node:http';
import { pathToFileURL } from 'node:url';

const fn = (await import(pathToFileURL(process.argv[2]).href)).default;
const server = http.createServer(async (req, res) => {
  try {
    const r = await fn(new Request('http://' + req.headers.host + req.url, { method: req.method, headers: req.headers }));
    const headers = {};
    r.headers.forEach((v, k) => {
      headers[k] = v;
    });
    res.writeHead(r.status, headers);
    res.end(Buffer.from(await r.arrayBuffer()));
  } catch (e) {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(String(e && e.stack || e));
  }
});
server.listen(0, '127.0.0.1', () => console.log('PORT ' + server.address().port));
