// The kforge dashboard: one page that reads the daemon's API (docs/daemon.md) and follows its
// events over the WebSocket. Everything the archive holds (kernel sources, reasons, LLM text) is
// untrusted, so it only ever reaches the page as text nodes, never as markup.
'use strict';

const TOKEN_KEY = 'kforge-token';
const COLOURS = ['#2457c5', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490', '#a16207',
  '#be185d'];

// ---- the token: from the address's fragment (never sent to a server) or the sign-in form ----

// `#token=HEX` opens the overview; `#token=HEX;/experiments/3` that page.
function takeTokenFromAddress() {
  const m = /^#token=([0-9a-fA-F]+)(?:;(\/[\w/]*))?$/.exec(location.hash);
  if (!m) return;
  sessionStorage.setItem(TOKEN_KEY, m[1]);
  // Out of the address bar and the history, so it is not shared with a copied link.
  history.replaceState(null, '', location.pathname + '#' + (m[2] || '/'));
}

function token() { return sessionStorage.getItem(TOKEN_KEY) || ''; }

class SignInNeeded extends Error {}

async function api(path, method = 'GET') {
  const res = await fetch(path, { method, headers: { Authorization: 'Bearer ' + token() } });
  if (res.status === 401) throw new SignInNeeded('the daemon refused the token');
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

// ---- building the page from text, never from markup ----

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'onclick' || k === 'onsubmit') node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(8)) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function table(headers, rows, numeric = []) {
  return el('table', {},
    el('thead', {}, el('tr', {}, headers.map((h, i) =>
      el('th', { class: numeric.includes(i) ? 'num' : null }, h)))),
    el('tbody', {}, rows.map(r => el('tr', {}, r.map((c, i) =>
      el('td', { class: numeric.includes(i) ? 'num' : null }, c))))));
}

const fmt = {
  speedup: v => (typeof v === 'number' && v > 0 ? v.toFixed(2) + 'x' : '-'),
  ms: v => (typeof v === 'number' ? (v >= 100 ? v.toFixed(1) : v >= 1 ? v.toFixed(3)
    : v.toPrecision(3)) : '-'),
  seconds: v => {
    if (typeof v !== 'number') return '-';
    if (v < 10) return v.toFixed(1) + ' s';
    if (v < 90) return v.toFixed(0) + ' s';
    if (v < 5400) return (v / 60).toFixed(1) + ' min';
    return (v / 3600).toFixed(1) + ' h';
  },
  time: t => (t ? new Date(t * 1000).toLocaleString() : '-'),
  pct: v => (typeof v === 'number' ? (100 * v).toFixed(0) + '%' : '-'),
};

function speedupCell(v) {
  return el('span', { class: v >= 1 ? 'good' : v > 0 ? 'bad' : 'muted' }, fmt.speedup(v));
}

function outcomeCell(outcome) {
  const cls = { correct: 'good', incorrect: 'bad', 'compile failed': 'bad', rejected: 'warn' };
  return el('span', { class: 'outcome ' + (cls[outcome] || 'muted') }, outcome);
}

const link = {
  experiment: id => el('a', { href: '#/experiments/' + id }, 'experiment ' + id),
  candidate: id => el('a', { href: '#/candidates/' + id }, 'candidate ' + id),
};

function facts(pairs) {
  return el('div', { class: 'facts' }, pairs.filter(p => p).map(([k, v]) =>
    el('div', {}, el('span', {}, k), v)));
}

// ---- live updates ----

const live = { socket: null, events: [], listeners: new Set(), retry: null, history: false };

function connectEvents() {
  const status = document.getElementById('live');
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/api/events';
  // A browser cannot set the Authorization header on a WebSocket: the token goes as a subprotocol
  // (a request header, never part of the address).
  const socket = new WebSocket(url, ['kforge', 'kforge-token.' + token()]);
  live.socket = socket;
  socket.onopen = () => { status.textContent = 'live'; status.className = 'live on'; };
  socket.onmessage = m => {
    const ev = JSON.parse(m.data);
    if (ev.kind === 'subscribed') return;
    live.events.push(ev);
    if (live.events.length > 200) live.events.shift();
    for (const f of live.listeners) f(ev);
  };
  socket.onclose = () => {
    status.textContent = 'disconnected: retrying';
    status.className = 'live off';
    if (live.socket === socket && token()) live.retry = setTimeout(connectEvents, 2000);
  };
}

function describeEvent(ev) {
  const d = ev.detail || {};
  const parts = [];
  if (d.target) parts.push(d.target);
  if (typeof d.speedup === 'number') parts.push(fmt.speedup(d.speedup));
  if (d.verdict) parts.push(d.verdict);
  if (d.reason) parts.push(String(d.reason).slice(0, 160));
  return el('li', {}, el('span', { class: 'muted' }, fmt.time(ev.time) + ' '),
    ev.experiment_id ? ['[', link.experiment(ev.experiment_id), '] '] : '',
    el('b', {}, ev.kind), ' ',
    d.candidate ? link.candidate(d.candidate) : '', ' ', parts.join(', '));
}

// ---- pages ----

async function overviewPage() {
  const [state, archived] = await Promise.all([api('/api/state'), api('/api/experiments')]);
  const running = new Map(state.experiments.map(e => [e.id, e]));
  // The latest archived events of the experiments this daemon runs, read once per page load;
  // live ones are added as they come (an event that came live meanwhile is kept once).
  if (!live.history) {
    const histories = await Promise.all(state.experiments.slice(0, 4).map(e =>
      api(`/api/experiments/${e.id}/events`).then(h => h.map(ev => ({ ...ev,
        experiment_id: e.id })))));
    live.history = true;
    const seen = new Set(live.events.map(ev => `${ev.experiment_id}/${ev.id}`));
    const older = histories.flat().filter(ev => !seen.has(`${ev.experiment_id}/${ev.id}`));
    live.events = older.sort((a, b) => a.id - b.id).slice(-30).concat(live.events);
  }
  const rows = archived.map(e => {
    const r = running.get(e.id);
    const best = r ? r.targets.map(t => el('div', {}, t.target_key + ' ',
      t.best_candidate ? [el('a', { href: '#/candidates/' + t.best_candidate },
        speedupCell(t.best_speedup)), t.best_speedup < 1 ? el('span', { class: 'bad' },
        ' no kernel beat eager yet') : ''] : el('span', { class: 'muted' }, 'none yet'))) : '';
    return [el('a', { href: '#/experiments/' + e.id }, String(e.id)), e.name,
      r ? r.status : e.status, r ? r.proposed : '', r ? r.evaluated : '', r ? r.correct : '',
      r ? r.in_flight : '', r ? fmt.seconds(r.elapsed_seconds) : '', best, fmt.time(e.created_at)];
  });
  return [
    el('h1', {}, 'Experiments'),
    archived.length ? table(['id', 'name', 'status', 'proposed', 'evaluated', 'correct',
      'in flight', 'running for', 'best speedup per target', 'created'], rows, [3, 4, 5, 6, 7])
      : el('p', { class: 'muted' }, 'No experiments in this archive yet: kforge console submit FILE.'),
    el('p', { class: 'muted' }, 'Counts and best speedups are shown for experiments this daemon ' +
      'runs; open any experiment for what the archive holds.'),
    el('h2', {}, 'Latest events'),
    el('ul', { class: 'events', id: 'events' },
      live.events.slice(-30).reverse().map(describeEvent)),
  ];
}

async function actorsPage() {
  const state = await api('/api/state');
  return [
    el('h1', {}, 'Actors'),
    table(['actor', 'role', 'queued', 'in flight', 'done', 'failed', 'busy', 'loaded', 'up',
      'current work', 'last error'],
    state.actors.map(a => [a.name, a.role, a.queued, a.in_flight, a.completed,
      a.failed ? el('span', { class: 'bad' }, a.failed) : 0, fmt.seconds(a.busy_seconds),
      fmt.seconds(a.loaded_seconds), fmt.seconds(a.uptime_seconds), a.current || '',
      a.last_error ? el('span', { class: 'bad' }, a.last_error) : '']), [2, 3, 4, 5, 6, 7, 8]),
    el('p', { class: 'muted' }, 'busy: slot-seconds spent working; loaded: seconds with work ' +
      'queued or running.'),
  ];
}

// Speedup over time per target: each correct candidate a dot, the best so far a step line, eager
// PyTorch the dashed line at 1x.
function speedupChart(experiment, candidates) {
  const correct = candidates.filter(c => typeof c.speedup === 'number');
  if (!correct.length) return el('p', { class: 'muted' }, 'No correct candidate yet.');
  const targets = [...new Set(candidates.map(c => c.target))];
  const t0 = experiment.created_at;
  const W = 900, H = 300, L = 52, R = 16, T = 14, B = 34;
  const tMax = Math.max(1, ...correct.map(c => c.created_at - t0));
  const yMax = Math.max(1.2, ...correct.map(c => c.speedup)) * 1.08;
  const x = t => L + (W - L - R) * Math.max(0, t - t0) / tMax;
  const y = v => T + (H - T - B) * (1 - v / yMax);
  const g = svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img',
    'aria-label': 'speedup over time per target' });
  const step = yMax > 6 ? 2 : yMax > 3 ? 1 : 0.5;
  for (let v = 0; v <= yMax; v += step) {
    g.append(svg('line', { class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    g.append(svg('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end' }, v.toFixed(1) + 'x'));
  }
  g.append(svg('line', { class: 'eager', x1: L, x2: W - R, y1: y(1), y2: y(1) }));
  g.append(svg('line', { class: 'axis', x1: L, x2: L, y1: T, y2: H - B }));
  g.append(svg('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }));
  for (let i = 0; i <= 4; ++i) {
    const t = t0 + tMax * i / 4;
    g.append(svg('text', { x: x(t), y: H - B + 16, 'text-anchor': 'middle' },
      fmt.seconds(tMax * i / 4)));
  }
  g.append(svg('text', { x: W - R, y: H - 4, 'text-anchor': 'end' }, 'time since the start'));
  targets.forEach((target, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const mine = correct.filter(c => c.target === target);
    let best = 0, path = '';
    for (const c of mine) {
      if (c.speedup > best) {
        path += (path ? `H${x(c.created_at)}V${y(c.speedup)}` : `M${x(c.created_at)},${y(c.speedup)}`);
        best = c.speedup;
      }
    }
    if (path) path += `H${W - R}`;
    g.append(svg('path', { d: path, fill: 'none', stroke: colour, 'stroke-width': 2 }));
    for (const c of mine) {
      const dot = svg('circle', { cx: x(c.created_at), cy: y(c.speedup), r: 3.5, fill: colour,
        'fill-opacity': 0.55, 'data-candidate': c.id },
      svg('title', {}, `candidate ${c.id}: ${fmt.speedup(c.speedup)} (${c.strategy})`));
      dot.style.cursor = 'pointer';
      dot.addEventListener('click', () => { location.hash = '#/candidates/' + c.id; });
      g.append(dot);
    }
  });
  // Colours through the style object: the page's policy refuses style attributes.
  const swatch = i => { const s = el('i'); s.style.background = COLOURS[i % COLOURS.length]; return s; };
  return el('div', { class: 'chart' }, g, el('div', { class: 'legend' }, targets.map((t, i) =>
    el('span', {}, swatch(i), t)),
  el('span', { class: 'muted' }, '- - eager PyTorch (1x); dots: correct candidates; line: best so far')));
}

// The lineage tree: every candidate under its parent, the path to each target's best in bold.
function lineageTree(candidates, bestIds) {
  const byId = new Map(candidates.map(c => [c.id, { c, children: [] }]));
  const roots = [];
  for (const node of byId.values()) {
    const parent = node.c.parent_id && byId.get(node.c.parent_id);
    (parent ? parent.children : roots).push(node);
  }
  const onBestPath = new Set();
  for (const id of bestIds) {
    for (let n = byId.get(id); n; n = n.c.parent_id ? byId.get(n.c.parent_id) : null) {
      onBestPath.add(n.c.id);
    }
  }
  const item = node => el('li', { class: onBestPath.has(node.c.id) ? 'best' : null },
    el('span', { class: 'node' }, el('a', { href: '#/candidates/' + node.c.id }, String(node.c.id)),
      ' ', el('span', { class: 'muted' }, node.c.target + ' · ' + node.c.strategy), ' ',
      outcomeCell(node.c.outcome), node.c.speedup ? [' ', speedupCell(node.c.speedup)] : ''),
    node.children.length ? el('ul', {}, node.children.map(item)) : '');
  return el('ul', { class: 'tree', id: 'lineage' }, roots.map(item));
}

async function experimentPage(id) {
  const [e, candidates, history] = await Promise.all([api('/api/experiments/' + id),
    api('/api/experiments/' + id + '/candidates'), api('/api/experiments/' + id + '/events')]);
  const command = verb => async () => {
    try { await api(`/api/experiments/${id}/${verb}`, 'POST'); } catch (err) { alert(err.message); }
    refresh();
  };
  const bestIds = e.targets.filter(t => t.best_candidate).map(t => t.best_candidate);
  const active = e.status === 'running' || e.status === 'paused';
  // The budget: candidates per target (docs/runtime.md's default) for each target still searched;
  // a target that has ended (exhausted, abandoned, or a suite's every file tried) has all it gets.
  const budget = e.config && e.config.budget ? e.config.budget.candidates_per_target : undefined;
  const perTarget = typeof budget === 'number' ? budget : 16;
  const planned = e.targets.reduce(
    (n, t) => n + (t.ended || !active ? t.candidates : Math.max(perTarget, t.candidates)), 0);
  const elapsed = Date.now() / 1000 - e.created_at;
  const slower = e.targets.filter(t => t.best_candidate && t.best_speedup < 1).map(t => t.target);
  return [
    el('h1', {}, `Experiment ${e.id}: ${e.name}`),
    facts([['status', e.status], ['finished', `${e.finished} of ${planned} candidates`],
      ['correct', e.correct], ['in the pipeline', e.candidates - e.finished],
      e.status === 'running' && e.finished > 0 && e.finished < planned ? ['about',
        fmt.seconds(elapsed / e.finished * (planned - e.finished)) + ' left'] : null,
      ['seed', e.seed], ['created', fmt.time(e.created_at)]]),
    el('progress', { max: Math.max(planned, 1), value: e.finished }),
    active ? el('div', { class: 'buttons' },
      e.status === 'running' ? el('button', { onclick: command('pause') }, 'pause')
        : el('button', { onclick: command('resume') }, 'resume'),
      el('button', { onclick: command('stop') }, 'stop')) : '',
    el('h2', {}, 'Targets'),
    slower.length ? el('p', { class: 'bad', id: 'slower' }, 'No kernel beat eager PyTorch for ' +
      slower.join(', ') + (active ? ' yet' : ': keep eager PyTorch there') + '.') : '',
    el('div', { class: 'scroll' }, table(['target', 'candidates (finished, correct)',
      'best speedup (p10-p90)', 'timed', 'best kernel', 'found after', 'of the bound', 'strategy',
      'ended'],
    e.targets.map(t => [el('span', { class: 'name' }, t.target),
      `${t.candidates} (${t.finished}, ${t.correct})`,
      t.best_candidate ? [speedupCell(t.best_speedup), t.best_confirmed
        ? ` (${t.best_speedup_p10.toFixed(2)}-${t.best_speedup_p90.toFixed(2)})` : ''] : '-',
      t.best_candidate ? (t.best_confirmed ? el('span', { class: 'good', title: 'timed again ' +
        'once the search was over, on fresh inputs, interleaved with eager; ' +
        `${fmt.speedup(t.best_speedup_searched)} in the search` }, 'confirmed')
        : t.best_timed === 'once' ? el('span', { title: 'evaluated once: this experiment (a ' +
          'suite of given kernels, or confirm_top 0) times nothing again' }, 'once')
          : el('span', { class: 'warn', title: 'the largest of the search\'s noisy draws, not ' +
            'timed again yet' }, 'search')) : '',
      t.best_candidate ? link.candidate(t.best_candidate) : '',
      t.best_after ? `${t.best_after} of ${t.candidates}` : '', fmt.pct(t.best_speed_of_light),
      el('span', { class: 'name' }, t.best_strategy || ''),
      t.ended ? el('span', { class: 'reason' }, t.ended) : '']),
    [1, 2, 6])),
    el('p', { class: 'muted' }, 'Speedups are geometric means over the configs of the median ' +
      'kernel time against eager PyTorch timed beside it. Once the search is over, the best ' +
      'candidates of each target are timed again (confirmed) and the best is reported from ' +
      'those times, with the range of eager\'s 10th over the kernel\'s 90th percentile to ' +
      'eager\'s 90th over the kernel\'s 10th; "search" marks a best not timed again yet, ' +
      '"once" one of an experiment that times nothing again (a suite).'),
    el('h2', {}, 'Speedup over time'),
    speedupChart(e, candidates),
    el('h2', {}, 'Lineage'),
    candidates.length ? lineageTree(candidates, bestIds) : el('p', { class: 'muted' }, 'none yet'),
    el('h2', {}, 'Events'),
    el('ul', { class: 'events', id: 'events' }, history.slice(-60).reverse()
      .map(ev => describeEvent({ ...ev, experiment_id: 0 }))),
  ];
}

// A line diff (longest common subsequence), shown as a unified diff with context.
function lineDiff(before, after) {
  const a = before.split('\n'), b = after.split('\n');
  const n = a.length, m = b.length;
  if (n * m > 4e6) return null;
  const lcs = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; --i) {
    for (let j = m - 1; j >= 0; --j) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const ops = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) { ops.push([' ', a[i]]); ++i; ++j; }
    else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push(['-', a[i++]]);
    else ops.push(['+', b[j++]]);
  }
  const context = 3, shown = new Array(ops.length).fill(false);
  ops.forEach((op, k) => {
    if (op[0] !== ' ') for (let d = -context; d <= context; ++d) shown[k + d] = true;
  });
  const lines = [];
  let skipped = false;
  ops.forEach((op, k) => {
    if (!shown[k]) { skipped = true; return; }
    if (skipped || (k === 0 && op[0] === ' ' && !shown[0])) lines.push(['@', '...']);
    skipped = false;
    lines.push(op);
  });
  return { lines, changed: ops.filter(o => o[0] !== ' ').length };
}

function diffBlock(parentSource, source) {
  const d = lineDiff(parentSource, source);
  if (!d) return el('p', { class: 'muted' }, 'The sources are too long to compare here.');
  if (!d.changed) return el('p', { class: 'muted' }, 'Same source as its parent.');
  const cls = { '+': 'add', '-': 'del', '@': 'hunk', ' ': null };
  return el('pre', { class: 'diff', id: 'diff' }, d.lines.map(([op, text]) =>
    el('span', { class: cls[op] }, (op === '@' ? '' : op + ' ') + text + '\n')));
}

// The 10th-90th percentiles of a side's timed calls, from the worker's record of the config.
function spread(detail, side) {
  const t = detail[side] || {};
  return typeof t.p10_ms === 'number' ? ` (${fmt.ms(t.p10_ms)}-${fmt.ms(t.p90_ms)})` : '';
}

function profileBlock(profile) {
  if (!profile) return el('p', { class: 'muted' }, 'Not profiled (yet).');
  const s = profile.summary || {};
  const parts = [el('p', {}, s.brief || '')];
  if (Array.isArray(profile.configs) && profile.configs.length) {
    parts.push(table(['config', 'kernel ms', 'eager ms', 'GB/s', 'share of speed-of-light'],
      profile.configs.filter(c => typeof c.kernel_ms === 'number').map(c => [c.name,
        fmt.ms(c.kernel_ms), fmt.ms(c.eager_ms),
        c.achieved_gb_per_s ? c.achieved_gb_per_s.toFixed(0) : '-',
        c.bytes_moved ? fmt.pct(c.fraction_of_speed_of_light) : 'no bound']), [1, 2, 3, 4]));
  }
  if (Array.isArray(profile.advice) && profile.advice.length) {
    parts.push(el('h3', {}, 'Advice'), el('ul', {}, profile.advice.map(a => el('li', {}, a))));
  }
  for (const key of ['counters', 'trace']) {
    if (profile[key]) {
      parts.push(el('details', {}, el('summary', {}, key === 'counters' ? 'hardware counters'
        : 'kernel trace'), el('pre', {}, JSON.stringify(profile[key], null, 2))));
    }
  }
  return parts;
}

async function candidatePage(id) {
  const c = await api('/api/candidates/' + id);
  let parentSource = null;
  if (c.parent_id) {
    try { parentSource = (await api('/api/candidates/' + c.parent_id)).source; } catch (err) {
      if (err instanceof SignInNeeded) throw err;
    }
  }
  const results = c.results || [];
  return [
    el('h1', {}, `Candidate ${c.id}`),
    facts([['experiment', link.experiment(c.experiment_id)],
      ['target', `${c.task}/${c.direction}/${c.backend}`], ['proposer', c.proposer],
      ['strategy', c.strategy], ['parent', c.parent_id ? link.candidate(c.parent_id) : 'none'],
      ['proposed', fmt.time(c.created_at)]]),
    (c.lineage || []).length > 1 ? el('p', {}, 'Lineage (first ancestor first): ',
      [...c.lineage].reverse().map((l, k) => [k ? ' → ' : '', link.candidate(l)])) : '',
    el('h2', {}, 'Verdicts'),
    table(['stage', 'verdict', 'kind', 'reason'], (c.verdicts || []).map(v => [v.stage,
      el('span', { class: ['accepted', 'correct'].includes(v.verdict) ? 'good' : 'bad' }, v.verdict),
      v.kind, v.reason])),
    el('h2', {}, 'Per config'),
    results.length ? table(['config', 'correct', 'kernel ms (p10-p90)', 'eager ms (p10-p90)',
      'speedup', 'compiled ms', 'max abs error'],
    results.map(r => [r.name, r.correct ? el('span', { class: 'good' }, 'yes')
      : el('span', { class: 'bad' }, 'no'),
    fmt.ms(r.kernel_ms) + spread(r.detail || {}, 'candidate'),
    fmt.ms(r.eager_ms) + spread(r.detail || {}, 'reference'), speedupCell(r.speedup),
    fmt.ms(r.compiled_ms), typeof r.max_abs_error === 'number' ? r.max_abs_error.toExponential(2)
      : '-']), [2, 3, 4, 5, 6])
      : el('p', { class: 'muted' }, 'Not evaluated.'),
    el('h2', {}, 'Profile'),
    profileBlock(c.profile),
    el('h2', {}, parentSource === null ? 'Source' : `Changes against candidate ${c.parent_id}`),
    parentSource === null ? '' : diffBlock(parentSource, c.source),
    parentSource === null ? '' : el('h2', {}, 'Source'),
    el('pre', { id: 'source' }, c.source),
    c.compile ? [el('h2', {}, 'Compilation'),
      facts([['ok', c.compile.ok ? 'yes' : 'no'], ['seconds', fmt.ms(c.compile.seconds)],
        ['cache hit', c.compile.cache_hit ? 'yes' : 'no'], ['headers', c.compile.headers || '']]),
      c.compile.log ? el('pre', {}, c.compile.log) : ''] : '',
  ];
}

// ---- routing and refreshing ----

const routes = [
  [/^#\/experiments\/(\d+)$/, m => experimentPage(m[1]),
    (ev, m) => String(ev.experiment_id) === m[1]],
  [/^#\/candidates\/(\d+)$/, m => candidatePage(m[1]),
    (ev, m) => ev.detail && String(ev.detail.candidate) === m[1]],
  [/^#\/actors$/, () => actorsPage(), () => true],
  [/^/, () => overviewPage(), () => true],
];

let current = null, pending = null, rendering = false;

function showSignIn(message) {
  const main = document.getElementById('main');
  main.replaceChildren(document.getElementById('sign-in').content.cloneNode(true));
  document.getElementById('sign-in-error').textContent = message || '';
  document.getElementById('sign-in-form').addEventListener('submit', ev => {
    ev.preventDefault();
    const value = document.getElementById('token').value.trim();
    if (!/^[0-9a-fA-F]+$/.test(value)) {
      document.getElementById('sign-in-error').textContent = 'a token is hexadecimal digits';
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, value);
    start();
  });
}

async function refresh() {
  if (rendering) { pending = pending || setTimeout(() => { pending = null; refresh(); }, 300); return; }
  rendering = true;
  const hash = location.hash || '#/';
  const route = routes.find(([re]) => re.test(hash));
  const match = route[0].exec(hash);
  current = { route, match };
  const main = document.getElementById('main');
  try {
    const content = await route[1](match);
    if (current.match[0] === match[0]) {
      main.replaceChildren(...[content].flat(3).filter(x => x !== '' && x != null));
      main.dataset.loaded = hash;
    }
  } catch (err) {
    if (err instanceof SignInNeeded) {
      sessionStorage.removeItem(TOKEN_KEY);
      if (live.socket) { const s = live.socket; live.socket = null; s.close(); }
      showSignIn(err.message);
    } else {
      main.replaceChildren(el('h1', {}, 'Not shown'), el('p', { class: 'bad' }, err.message));
    }
  } finally {
    rendering = false;
  }
}

// Events come in bursts: the page is read again at most every 750 ms.
function onEvent(ev) {
  if (!current || !current.route[2](ev, current.match)) return;
  if (pending) return;
  pending = setTimeout(() => { pending = null; refresh(); }, 750);
}

function start() {
  if (!token()) { showSignIn(''); return; }
  if (!live.socket) connectEvents();
  refresh();
}

takeTokenFromAddress();
live.listeners.add(onEvent);
window.addEventListener('hashchange', () => { takeTokenFromAddress(); refresh(); });
start();
