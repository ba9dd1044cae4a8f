// The engine's Router (@svc/engine/kit) against find-my-way (Fastify's router) on the real route
// tables of the four servers that use it: the hub's REST API, the gateway's management API, the
// service server, and http_server's one route. Each router gets the same routes and looks up the
// same mix of requests (hits on static and parameter routes, a wrong method, a miss); rounds
// alternate between the two and the median ns per lookup is kept. In-process, no sockets: what
// routing alone costs a request.
import FindMyWay from 'find-my-way';
import { ROOT } from './lib.mjs';

const { Router } = await import(`${ROOT}engine/dist/kit/index.js`);

const ANY = '*';

/** The tables as the servers add them: [methods, pattern], and the requests to look up. */
const TABLES = [
  {
    name: 'hub REST API (15 routes, trailing slash optional)',
    options: { trailingSlash: 'ignore', decodeParams: false },
    fmw: { ignoreTrailingSlash: true },
    routes: [
      ['POST', '/api/login/'],
      ['POST', '/api/users/me/password/'],
      ['GET', '/api/users/me/'],
      ['POST', '/api/agents/'],
      ['GET', '/api/agents/'],
      ['GET', '/api/agents/{id}/'],
      ['DELETE', '/api/agents/{id}/'],
      ['POST', '/api/auth/token/'],
      ['GET', '/api/apis/'],
      ['POST', '/api/sync/'],
      ['GET', '/api/sync/{id}/'],
      ['POST', '/api/licenses/'],
      ['POST', '/api/users/me/keys/'],
      ['GET', '/api/users/me/keys/'],
      ['DELETE', '/api/users/me/keys/{key}/'],
    ],
    requests: [
      ['GET', '/api/apis/'],
      ['GET', '/api/agents'],
      ['GET', '/api/agents/5f0c2a1e-agent/'],
      ['POST', '/api/auth/token/'],
      ['GET', '/api/sync/abc123/'],
      ['PUT', '/api/agents/x/'],
      ['GET', '/api/nothing/here/'],
    ],
  },
  {
    name: 'gateway management API (26 routes)',
    options: { decodeParams: false },
    fmw: {},
    routes: [
      ['GET', '/svc/reload'],
      ['GET', '/svc/reload/group'],
      ['GET', '/svc/apis'],
      ['POST', '/svc/apis'],
      ['PUT', '/svc/apis'],
      ['DELETE', '/svc/apis'],
      ['GET', '/svc/apis/{id}'],
      ['POST', '/svc/apis/{id}'],
      ['PUT', '/svc/apis/{id}'],
      ['DELETE', '/svc/apis/{id}'],
      ['GET', '/svc/apis/oas'],
      ['POST', '/svc/apis/oas'],
      ['GET', '/svc/apis/oas/{id}'],
      ['PUT', '/svc/apis/oas/{id}'],
      ['DELETE', '/svc/apis/oas/{id}'],
      ['POST', '/svc/keys/create'],
      ['GET', '/svc/keys'],
      [['POST', 'PUT'], '/svc/keys'],
      ['DELETE', '/svc/keys'],
      ['GET', '/svc/keys/{key}'],
      [['POST', 'PUT'], '/svc/keys/{key}'],
      ['DELETE', '/svc/keys/{key}'],
      ['GET', '/svc/policies'],
      ['POST', '/svc/policies'],
      ['GET', '/svc/policies/{id}'],
      ['DELETE', '/svc/policies/{id}'],
    ],
    requests: [
      ['GET', '/svc/apis'],
      ['GET', '/svc/apis/1f2e3d4c5b6a'],
      ['GET', '/svc/apis/oas/1f2e3d4c5b6a'],
      ['POST', '/svc/keys/create'],
      ['GET', '/svc/keys/eyJvcmciOiIxIiwiaWQiOiJhIn0'],
      ['PATCH', '/svc/keys/k1'],
      ['GET', '/svc/nothing/x/y'],
    ],
  },
  {
    name: 'service server (8 routes, 1 subtree)',
    options: {},
    fmw: {},
    routes: [
      [['GET', 'HEAD'], '/ping'],
      [['GET', 'HEAD'], '/ready'],
      [['GET', 'HEAD'], '/version'],
      [['GET', 'HEAD'], '/endpoints'],
      [ANY, '/metrics'],
      [ANY, '/post'],
      [ANY, '/streams'],
      [ANY, '/streams/'],
    ],
    requests: [
      ['GET', '/ping'],
      ['GET', '/metrics'],
      ['POST', '/post'],
      ['GET', '/streams/s1'],
      ['POST', '/ready'],
      ['GET', '/favicon.ico'],
    ],
  },
  {
    name: "http_server's route (POST /post), the hot path",
    options: {},
    fmw: {},
    routes: [['POST', '/post']],
    requests: [['POST', '/post']],
  },
];

/** find-my-way's spelling of a pattern: `{id}` → `:id`, a subtree `/a/` → `/a/*`. */
function fmwPath(p, subtrees) {
  const q = p.replace(/\{([^}:]+)\}/g, ':$1');
  return subtrees && q.endsWith('/') ? `${q}*` : q;
}

function build(table) {
  const own = new Router(table.options);
  const fmw = FindMyWay(table.fmw);
  const subtrees = table.options.trailingSlash !== 'ignore';
  for (const [methods, path] of table.routes) {
    own.add(methods, path, path);
    if (methods === ANY) fmw.all(fmwPath(path, subtrees), () => path);
    else fmw.on(methods, fmwPath(path, subtrees), () => path);
  }
  return { own, fmw };
}

/** ns per lookup of `n` lookups over `requests`, with `find`. */
function time(find, requests, n) {
  let hits = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n;) {
    for (let j = 0; j < requests.length; j++, i++) if (find(requests[j][0], requests[j][1])) hits++;
  }
  const ns = Number(process.hrtime.bigint() - t0) / n;
  if (hits < 0) throw new Error('unreachable');
  return ns;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run({ quick = false } = {}) {
  const n = quick ? 200_000 : 2_000_000;
  const rounds = quick ? 3 : 7;
  const rows = [];
  for (const table of TABLES) {
    const { own, fmw } = build(table);
    const ownFind = (m, p) => own.find(m, p);
    const fmwFind = (m, p) => fmw.find(m, p);
    // Both take and refuse the same requests (a wrong method: find-my-way has no route, ours says which methods).
    for (const [m, p] of table.requests) {
      const o = own.find(m, p);
      if (Boolean(o?.found) !== Boolean(fmw.find(m, p))) throw new Error(`the routers disagree on ${m} ${p}`);
    }
    // Warm both (JIT), then alternate.
    time(ownFind, table.requests, n / 4);
    time(fmwFind, table.requests, n / 4);
    const ours = [];
    const theirs = [];
    for (let r = 0; r < rounds; r++) {
      ours.push(time(ownFind, table.requests, n));
      theirs.push(time(fmwFind, table.requests, n));
    }
    const a = median(ours);
    const b = median(theirs);
    rows.push({
      bench: `router: ${table.name}, a lookup`,
      result: `${a.toFixed(0)} ns (Router, @svc/engine/kit)`,
      baseline: `find-my-way 9.10.1 ${b.toFixed(0)} ns`,
      ratio: b / a,
      target: '≥ 1.0× (own router only if not slower)',
      pass: b / a >= 1,
    });
  }
  return rows;
}
