// The API the servers call in the call benchmarks: a tiny node:http server on 127.0.0.1 that
// answers every request with the same small JSON (a Petstore Pet). Runs in its own process,
// so that neither the client nor the MCP server shares its event loop. Prints its URL.
// `GET /pet/503` is the flaky one (bench/features.ts): it answers 503 with `Retry-After: 0`
// and the pet on the next request, in turn, so that every call of it is retried once.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

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
const FLAKY = '/pet/503';
/** The flaky path's state: whether its next answer is the 503, and the time from each 503 sent to its retry's arrival. */
const flaky = { failNext: true, failedAt: 0, retries: 0, gapMs: 0 };
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    served++;
    if (req.url === FLAKY && flaky.failNext) {
      flaky.failNext = false;
      res.writeHead(503, { 'retry-after': '0', 'content-length': 0 });
      res.end(() => (flaky.failedAt = performance.now()));
      return;
    }
    if (req.url === FLAKY) {
      flaky.failNext = true;
      flaky.retries++;
      flaky.gapMs += performance.now() - flaky.failedAt;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.on('connection', () => connections++);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
// A line on stdin: `retries` prints how many retries of the flaky path arrived and their total
// gap (ms, from the 503 written to the retry's arrival: the server's turnaround between tries),
// then starts counting again; any other line prints how many requests were served and how many
// TCP connections were opened so far (to check that every call arrived, and whether callers
// reuse connections).
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line) => {
  if (line.trim() !== 'retries') return process.stdout.write(`${served} ${connections}\n`);
  process.stdout.write(`${flaky.retries} ${flaky.gapMs}\n`);
  Object.assign(flaky, { retries: 0, gapMs: 0 });
});
process.stdin.on('end', () => process.exit(0));
