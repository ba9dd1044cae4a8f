// The hub's web page: plain JavaScript over the REST API (the login's HttpOnly cookie authenticates it).
const $ = (id) => document.getElementById(id);
const text = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
let agentNames = {};

async function api(method, path, body) {
  const r = await fetch(path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.message || `${r.status}`);
  return data;
}

function show(view) {
  for (const id of ['login', 'change', 'app']) $(id).classList.toggle('hidden', id !== view);
}

async function loadAgents() {
  const agents = await api('GET', '/api/agents/');
  agentNames = Object.fromEntries(agents.map((a) => [a.id, a.name]));
  $('agents').innerHTML = agents
    .map(
      (a) =>
        `<tr><td>${text(a.name)}</td><td class="${a.status}">${a.status}</td><td>${text(a.last_heartbeat)}</td><td>${text((a.providers || []).map((p) => `${p.name} (${p.type})`).join(', '))}</td><td><code>${text(a.id)}</code></td></tr>`,
    )
    .join('');
}

async function loadApis() {
  const q = $('search').value.trim();
  const apis = await api('GET', `/api/apis/?limit=500${q ? `&q=${encodeURIComponent(q)}` : ''}`);
  $('apis').innerHTML = apis
    .map(
      (a) =>
        `<tr><td>${text(a.name)}</td><td>${text(a.provider_name)} (${text(a.provider_type)})</td><td>${text(a.kind)}</td><td>${text(a.base_path)}</td><td>${text(agentNames[a.agent_id] || a.agent_id)}</td><td>${text(a.synced_at)}</td></tr>`,
    )
    .join('');
}

async function enter(username) {
  $('who').textContent = username;
  show('app');
  await loadAgents();
  await loadApis();
  setInterval(() => loadAgents().catch(() => {}), 5000);
}

$('login-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  try {
    const me = await api('POST', '/api/login/', { username: $('username').value, password: $('password').value });
    $('current').value = $('password').value;
    if (me.must_change_password) show('change');
    else await enter(me.username);
  } catch (err) {
    $('login-error').textContent = err.message;
  }
});

$('change-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  try {
    await api('POST', '/api/users/me/password/', { current_password: $('current').value, new_password: $('new').value });
    await enter($('username').value);
  } catch (err) {
    $('change-error').textContent = err.message;
  }
});

$('search').addEventListener('input', () => loadApis().catch(() => {}));

$('resync').addEventListener('click', async () => {
  const sync = await api('POST', '/api/sync/');
  $('progress').textContent = `asked ${sync.agents} agent(s)…`;
  for (let i = 0; i < 120; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const p = await api('GET', `/api/sync/${sync.id}/`);
    const states = Object.values(p.agents);
    const done = states.filter((s) => s.state === 'complete' || s.state === 'failed').length;
    $('progress').textContent = `${done}/${states.length} agent(s) done, ${states.reduce((n, s) => n + s.apis, 0)} API(s)`;
    if (done === states.length) break;
  }
  await loadApis();
  await loadAgents();
});

api('GET', '/api/users/me/').then(
  (me) => (me.must_change_password ? show('change') : enter(me.username)),
  () => show('login'),
);
