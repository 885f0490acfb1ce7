// The API the servers call in the call benchmarks: a tiny node:http server on 127.0.0.1 that
// answers every request with the same small JSON (a Petstore Pet). Runs in its own process,
// so that neither the client nor the MCP server shares its event loop. Prints its URL.
import { createServer } from 'node:http';

const body = JSON.stringify({
  id: 1,
  name: 'doggie',
  category: { id: 1, name: 'dogs' },
  photoUrls: ['https://example.com/1.jpg'],
  tags: [{ id: 1, name: 'good' }],
  status: 'available',
});
let served = 0;
let connections = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    served++;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.on('connection', () => connections++);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
// Any line on stdin: print how many requests were served and how many TCP connections were
// opened so far (to check that every call arrived, and whether callers reuse connections).
process.stdin.on('data', () => process.stdout.write(`${served} ${connections}\n`));
process.stdin.on('end', () => process.exit(0));
