// The home page's behaviour: keeps an API key in localStorage, checks it with /v1/api-keys/current and shows /v1/organization.
const STORAGE_KEY = 'printfarm.apiKey';

const $ = (id) => document.getElementById(id);

/** A failure the page can explain in one sentence. */
class PageError extends Error {}

async function api(path, key) {
  let res;
  try {
    res = await fetch(path, { headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' } });
  } catch {
    throw new PageError('Cannot reach the printfarm server. Is it running?');
  }
  let body = null;
  try {
    body = await res.json();
  } catch {
    // A body that is not JSON: the status below still tells what happened.
  }
  if (res.ok) return body;
  const reason = (body?.error?.message || `HTTP ${res.status}`).replace(/\.$/, '');
  if (res.status === 401) throw new PageError(`That API key was not accepted: ${reason}.`);
  if (res.status === 403) throw new PageError(`This API key may not do that: ${reason}.`);
  if (res.status === 429) throw new PageError(`Too many requests: ${reason}.`);
  throw new PageError(`The server answered ${res.status}: ${reason}.`);
}

function showMessage(text, kind = 'error') {
  const el = $('message');
  el.textContent = text;
  el.className = `message ${kind}`;
  el.hidden = !text;
}

const LABELS = { rate_limit_per_hour: 'Rate limit per hour', energy_cost_per_kwh: 'Energy cost per kWh', id: 'ID' };

function label(field) {
  if (LABELS[field]) return LABELS[field];
  const words = field.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function display(field, value) {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (field.endsWith('_at') && typeof value === 'string') {
    const d = new Date(value);
    return Number.isNaN(d.getTime()) ? value : d.toLocaleString();
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function showOrganization(org, key) {
  $('org-name').textContent = org.name || '(unnamed organization)';
  const list = $('org-fields');
  list.replaceChildren();
  for (const [field, value] of Object.entries(org)) {
    if (field === 'name') continue;
    const dt = document.createElement('dt');
    dt.textContent = label(field);
    const dd = document.createElement('dd');
    dd.textContent = display(field, value);
    dd.dataset.field = field;
    list.append(dt, dd);
  }
  // The key's name is what its owner chose to recognise it by; the id is only a fallback for an unnamed key.
  $('who').textContent = `signed in with ${key.name || key.id}`;
  $('who').title = `key ${key.id} (${key.prefix}…)`;
  $('who').hidden = false;
  $('forget').hidden = false;
  $('connect').hidden = true;
  $('org').hidden = false;
}

function showConnect() {
  $('org').hidden = true;
  $('who').hidden = true;
  $('forget').hidden = true;
  $('connect').hidden = false;
  $('key').focus();
}

async function connect(key, { saved }) {
  const button = $('connect-button');
  button.disabled = true;
  showMessage('Checking the key…', 'info');
  try {
    const record = await api('/v1/api-keys/current', key);
    const org = await api('/v1/organization', key);
    localStorage.setItem(STORAGE_KEY, key);
    showMessage('');
    showOrganization(org, record);
  } catch (err) {
    // A saved key that stopped working (revoked, rolled) is dropped so the form asks again.
    if (saved) localStorage.removeItem(STORAGE_KEY);
    showConnect();
    showMessage(err instanceof PageError ? err.message : `Something went wrong: ${err.message}`);
  } finally {
    button.disabled = false;
  }
}

$('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const key = $('key').value.trim();
  if (!key) return;
  connect(key, { saved: false });
});

$('forget').addEventListener('click', () => {
  localStorage.removeItem(STORAGE_KEY);
  $('key').value = '';
  showMessage('The key was removed from this browser.', 'info');
  showConnect();
});

const saved = localStorage.getItem(STORAGE_KEY);
if (saved) connect(saved, { saved: true });
else showConnect();
