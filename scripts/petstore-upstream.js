// A small in-memory Petstore API (the public Swagger Petstore's /v2 operations) on 127.0.0.1,
// so that `npm run demo` answers tool calls on a machine without internet. Plain Node, no
// dependencies. Run alone: `node scripts/petstore-upstream.js [port]`.
import { createServer } from 'node:http';
import { fileURLToPath, URLSearchParams } from 'node:url';

const json = (res, status, value) => {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};
const notFound = (res, what) => json(res, 404, { code: 1, type: 'error', message: `${what} not found` });
const invalid = (res, message) => json(res, 400, { code: 400, type: 'error', message });

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > 1_000_000) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseJson(bytes) {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The Petstore's state: a few pets, orders and users, as the public demo starts with. */
function seed() {
  const pets = new Map();
  for (const pet of [
    { id: 1, category: { id: 1, name: 'Dogs' }, name: 'doggie', photoUrls: [], tags: [{ id: 1, name: 'friendly' }], status: 'available' },
    { id: 2, category: { id: 2, name: 'Cats' }, name: 'Kitty', photoUrls: [], tags: [{ id: 2, name: 'calm' }], status: 'pending' },
    { id: 3, category: { id: 1, name: 'Dogs' }, name: 'Rex', photoUrls: [], tags: [{ id: 1, name: 'friendly' }], status: 'sold' },
  ]) {
    pets.set(pet.id, pet);
  }
  const orders = new Map([
    [1, { id: 1, petId: 3, quantity: 1, shipDate: '2026-01-01T00:00:00.000Z', status: 'delivered', complete: true }],
  ]);
  const users = new Map([
    [
      'user1',
      {
        id: 1,
        username: 'user1',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        password: 'secret',
        phone: '555-0100',
        userStatus: 1,
      },
    ],
  ]);
  return { pets, orders, users };
}

export function startPetstore(port = 0, host = '127.0.0.1') {
  const { pets, orders, users } = seed();
  let nextId = 100;
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://petstore');
      const parts = url.pathname.replace(/^\/v2/, '').split('/').filter(Boolean).map(decodeURIComponent);
      const body = await readBody(req);
      const method = req.method ?? 'GET';
      const route = `${method} /${parts.map((p, i) => (i > 0 && !['findByStatus', 'findByTags', 'uploadImage', 'inventory', 'order', 'login', 'logout', 'createWithArray', 'createWithList'].includes(p) ? ':' : p)).join('/')}`;
      const id = Number(parts[1]);
      switch (route) {
        case 'POST /pet':
        case 'PUT /pet': {
          const pet = parseJson(body);
          if (typeof pet !== 'object' || pet === null || typeof pet.name !== 'string')
            return invalid(res, 'Invalid input: a pet needs a name');
          if (method === 'PUT' && !pets.has(pet.id)) return notFound(res, 'Pet');
          const saved = { photoUrls: [], ...pet, id: typeof pet.id === 'number' ? pet.id : nextId++ };
          pets.set(saved.id, saved);
          return json(res, 200, saved);
        }
        case 'GET /pet/findByStatus': {
          const wanted = url.searchParams.getAll('status').flatMap((s) => s.split(','));
          return json(
            res,
            200,
            [...pets.values()].filter((p) => wanted.includes(p.status)),
          );
        }
        case 'GET /pet/findByTags': {
          const wanted = url.searchParams.getAll('tags').flatMap((s) => s.split(','));
          return json(
            res,
            200,
            [...pets.values()].filter((p) => (p.tags ?? []).some((t) => wanted.includes(t.name))),
          );
        }
        case 'GET /pet/:':
          return pets.has(id) ? json(res, 200, pets.get(id)) : notFound(res, 'Pet');
        case 'POST /pet/:': {
          if (!pets.has(id)) return notFound(res, 'Pet');
          const form = new URLSearchParams(body.toString('utf8'));
          const pet = pets.get(id);
          if (form.has('name')) pet.name = form.get('name');
          if (form.has('status')) pet.status = form.get('status');
          return json(res, 200, { code: 200, type: 'unknown', message: String(id) });
        }
        case 'DELETE /pet/:':
          return pets.delete(id) ? json(res, 200, { code: 200, type: 'unknown', message: String(id) }) : notFound(res, 'Pet');
        case 'POST /pet/:/uploadImage':
          if (!pets.has(id)) return notFound(res, 'Pet');
          return json(res, 200, { code: 200, type: 'unknown', message: `File uploaded: ${body.length} bytes` });
        case 'GET /store/inventory': {
          const counts = {};
          for (const p of pets.values()) counts[p.status] = (counts[p.status] ?? 0) + 1;
          return json(res, 200, counts);
        }
        case 'POST /store/order': {
          const order = parseJson(body);
          if (typeof order !== 'object' || order === null) return invalid(res, 'Invalid Order');
          const saved = { ...order, id: typeof order.id === 'number' ? order.id : nextId++ };
          orders.set(saved.id, saved);
          return json(res, 200, saved);
        }
        case 'GET /store/order/:':
          return orders.has(id) ? json(res, 200, orders.get(id)) : notFound(res, 'Order');
        case 'DELETE /store/order/:':
          return orders.delete(id) ? json(res, 200, { code: 200, type: 'unknown', message: String(id) }) : notFound(res, 'Order');
        case 'POST /user':
        case 'POST /user/createWithArray':
        case 'POST /user/createWithList': {
          const given = parseJson(body);
          const list = Array.isArray(given) ? given : [given];
          if (list.some((u) => typeof u !== 'object' || u === null || typeof u.username !== 'string'))
            return invalid(res, 'a user needs a username');
          for (const u of list) users.set(u.username, u);
          return json(res, 200, { code: 200, type: 'unknown', message: 'ok' });
        }
        case 'GET /user/login':
          return json(res, 200, `logged in user session:${Date.now()}`);
        case 'GET /user/logout':
          return json(res, 200, { code: 200, type: 'unknown', message: 'ok' });
        case 'GET /user/:':
          return users.has(parts[1]) ? json(res, 200, users.get(parts[1])) : notFound(res, 'User');
        case 'PUT /user/:': {
          const user = parseJson(body);
          if (!users.has(parts[1])) return notFound(res, 'User');
          if (typeof user !== 'object' || user === null) return invalid(res, 'Invalid user');
          users.set(parts[1], { ...user, username: parts[1] });
          return json(res, 200, { code: 200, type: 'unknown', message: 'ok' });
        }
        case 'DELETE /user/:':
          return users.delete(parts[1]) ? json(res, 200, { code: 200, type: 'unknown', message: parts[1] }) : notFound(res, 'User');
        default:
          return json(res, 404, { code: 404, type: 'unknown', message: `no route ${method} ${url.pathname}` });
      }
    } catch (error) {
      json(res, 500, { code: 500, type: 'error', message: String(error?.message ?? error) });
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({ url: `http://${host}:${address.port}/v2`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const petstore = await startPetstore(Number(process.argv[2] ?? 0));
  console.log(`Petstore API at ${petstore.url}`);
}
