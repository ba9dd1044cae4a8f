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
        `<tr><td><button class="link" data-api="${text(a.id)}">${text(a.name)}</button></td><td>${text(a.provider_name)} (${text(a.provider_type)})</td><td>${text(a.kind)}</td><td>${text(a.base_path)}</td><td>${text(agentNames[a.agent_id] || a.agent_id)}</td><td>${text(a.synced_at)}</td></tr>`,
    )
    .join('');
}

async function loadSyncs() {
  const syncs = await api('GET', '/api/syncs/?limit=50');
  $('syncs').innerHTML = syncs
    .map(
      (h) =>
        `<tr><td>${text(h.finished_at)}</td><td>${text(h.agent_name)}</td><td>${text(h.trigger)}</td><td class="${h.status === 'failed' ? 'failed' : ''}">${text(h.status)}</td><td>${h.api_count}</td><td>${h.added}</td><td>${h.changed}</td><td>${h.removed}</td><td class="failed">${text(h.errors.map((e) => (e.provider ? `${e.provider}: ${e.error}` : e.error)).join('; '))}</td></tr>`,
    )
    .join('');
}

let shownApi = '';

async function showApi(id) {
  const a = await api('GET', `/api/apis/${encodeURIComponent(id)}/`);
  shownApi = id;
  $('api-title').textContent = `${a.name} (${a.kind})`;
  $('api-summary').textContent =
    `${a.provider_name} (${a.provider_type}) · API id ${a.api_id} · base path ${a.base_path || '-'} · agent ${agentNames[a.agent_id] || a.agent_id} · last synced ${a.synced_at}`;
  $('api-changes').innerHTML = a.changes
    .map(
      (c) =>
        `<tr><td>${text(c.at)}</td><td>${text(c.trigger)}</td><td>${text(c.change)}</td><td>${text(c.fields.map((f) => `${f.path} (${f.op})`).join(', '))}</td></tr>`,
    )
    .join('');
  $('api-definition').textContent = JSON.stringify(a.definition, null, 2);
  $('api-detail').classList.remove('hidden');
}

async function refresh() {
  await loadAgents();
  await loadApis();
  await loadSyncs();
  if (shownApi) await showApi(shownApi).catch(() => {});
}

async function enter(username) {
  $('who').textContent = username;
  show('app');
  await refresh();
  // Scheduled syncs arrive without anyone asking: the page follows them.
  setInterval(() => refresh().catch(() => {}), 5000);
}

$('apis').addEventListener('click', (e) => {
  const id = e.target instanceof HTMLElement ? e.target.dataset.api : undefined;
  if (id) showApi(id).catch((err) => ($('api-title').textContent = err.message));
});

$('onboard-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  $('onboard-error').textContent = '';
  try {
    const out = await api('POST', '/api/onboarding/', {
      name: $('onboard-name').value,
      provider: { type: $('onboard-type').value, address: $('onboard-address').value.trim() },
      sync_interval: $('onboard-interval').value.trim(),
    });
    $('onboard-token').textContent = out.token;
    $('onboard-license').textContent = out.license;
    $('onboard-env').textContent = out.secrets_from_environment.join(', ');
    $('agent-config').value = out.agent_config;
    $('onboard-result').classList.remove('hidden');
    $('onboard-form').reset();
    await loadAgents();
  } catch (err) {
    $('onboard-error').textContent = err.message;
  }
});

$('onboard-copy').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText($('agent-config').value);
    $('onboard-copied').textContent = 'copied';
  } catch {
    $('agent-config').select();
    $('onboard-copied').textContent = 'selected: press Ctrl+C';
  }
});

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
  await refresh();
});

api('GET', '/api/users/me/').then(
  (me) => (me.must_change_password ? show('change') : enter(me.username)),
  () => show('login'),
);
