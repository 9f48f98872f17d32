// Muster's dashboard: reads the controller's /v1/ui routes and draws the cluster, the queue, the
// teams' usage and a job's page. Read-only: it sends nothing but GETs. No framework, no other
// origin; the DOM is built with textContent (never innerHTML), so no name in the data can inject
// markup. The token (a JWT from `scontrol token`) arrives as /ui#token=... and stays in this
// tab's sessionStorage; it is sent as X-SLURM-USER-TOKEN.
'use strict';

const REFRESH_MS = 10000;

function takeToken() {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem('muster-token', decodeURIComponent(m[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem('muster-token') || '';
}
const token = takeToken();

async function getJson(path) {
  const headers = token ? {'X-SLURM-USER-TOKEN': token} : {};
  const res = await fetch(path, {headers, credentials: 'omit', cache: 'no-store'});
  let body = null;
  try { body = await res.json(); } catch (e) { body = null; }
  if (!res.ok) throw new Error((body && body.error) || ('HTTP ' + res.status));
  return body;
}

// --- small DOM helpers -------------------------------------------------------------------
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-')) e.setAttribute(k, String(v));
    else if (k === 'title' || k === 'href' || k === 'id') e.setAttribute(k, String(v));
    else e[k] = v;
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return e;
}
const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
}
function table(headers, rows, cls) {
  const head = el('tr', {}, ...headers.map(h => el('th', {}, h)));
  const t = el('table', {class: cls || ''}, el('thead', {}, head), el('tbody', {}, ...rows));
  return t;
}
function jobLink(id, label) {
  return el('a', {href: '/ui?view=job&id=' + id, class: 'job', 'data-job': id}, label || String(id));
}

// --- formatting --------------------------------------------------------------------------
const pad = n => String(n).padStart(2, '0');
// Slurm's time form (squeue --start, scontrol): local time, YYYY-MM-DDTHH:MM:SS.
function slurmTime(t) {
  if (!t) return 'N/A';
  const d = new Date(t * 1000);
  return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + 'T' +
         pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
}
// Slurm's duration form: [D-]HH:MM:SS, or M:SS under an hour.
function duration(s) {
  if (s === undefined || s === null || s < 0) return '';
  if (s >= 0x7fffffff || s === -1) return 'UNLIMITED';
  const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
  const sec = s % 60;
  if (d > 0) return d + '-' + pad(h) + ':' + pad(m) + ':' + pad(sec);
  if (h > 0) return h + ':' + pad(m) + ':' + pad(sec);
  return m + ':' + pad(sec);
}
function limit(s) { return s <= 0 || s >= 4000000000 ? 'UNLIMITED' : duration(s); }
function gpus(n) { return Number.isInteger(n) ? String(n) : n.toFixed(2); }
function mb(v) { return v >= 1024 ? (v / 1024).toFixed(v % 1024 ? 1 : 0) + ' GiB' : v + ' MiB'; }
// A colour per job, so that one job's GPUs read as one block across the grid.
function jobHue(id) { return (id * 137) % 360; }

// --- views -------------------------------------------------------------------------------
function stat(label, value, cls, key) {
  return el('div', {class: 'stat ' + (cls || ''), 'data-stat': key},
            el('div', {class: 'value'}, String(value)), el('div', {class: 'label'}, label));
}

function renderCluster(d) {
  const t = d.totals;
  const out = [el('h1', {}, 'Cluster')];
  out.push(el('div', {class: 'stats'},
    stat('nodes', t.nodes, '', 'nodes'), stat('GPUs', t.gpus, '', 'gpus'),
    stat('allocated', t.allocated, 'allocated', 'allocated'), stat('idle', t.idle, 'idle', 'idle'),
    stat('drained', t.drained, 'drained', 'drained'), stat('down', t.down, 'down', 'down'),
    stat('unhealthy', t.unhealthy, 'unhealthy', 'unhealthy')));
  out.push(el('div', {class: 'legend'},
    ...['idle', 'allocated', 'drained', 'down', 'unhealthy'].map(s => el('span', {class: 'key ' + s}, s)),
    el('span', {class: 'note'}, d.utilization_reported
      ? 'GPU utilization: as the agents\' heartbeats last read it (DCGM_FI_DEV_GPU_UTIL)'
      : 'GPU utilization: not reported yet (NVML GPUs report it once their /metrics is scraped)')));
  const rows = d.nodes.map(n => {
    const cells = n.gpus.map(g => {
      const job = g.jobs[0];
      const cell = el('div', {class: 'gpu ' + g.state, 'data-gpu': n.name + ':' + g.index, 'data-state': g.state,
                              title: n.name + ' GPU ' + g.index + ' (' + g.model + '): ' + g.state +
                                     (g.fault ? ' — ' + g.fault : '') +
                                     g.jobs.map(j => ' — job ' + j.label + ' of ' + j.user).join('')},
        el('div', {class: 'idx'}, 'GPU ' + g.index),
        el('div', {class: 'model'}, g.model),
        job ? el('div', {class: 'holder'}, jobLink(job.id, job.label),
                 el('span', {class: 'user'}, ' ' + job.user + (g.jobs.length > 1 ? ' +' + (g.jobs.length - 1) : '')))
            : el('div', {class: 'holder muted'}, g.fault ? 'fault' : g.state),
        el('div', {class: 'util', 'data-util': g.util_pct === undefined ? '' : String(g.util_pct)},
           g.util_pct === undefined ? 'util —' : 'util ' + Math.round(g.util_pct) + '%'),
        g.fb_used_mib === undefined ? null : el('div', {class: 'util'}, 'mem ' + (g.fb_used_mib / 1024).toFixed(1) + ' GiB'));
      if (job && g.state === 'allocated') cell.style.borderTopColor = 'hsl(' + jobHue(job.id) + ',65%,45%)';
      return cell;
    });
    return el('div', {class: 'node', 'data-node': n.name},
      el('div', {class: 'nodeinfo'},
        el('div', {class: 'nodename'}, n.name),
        el('div', {class: 'nodestate ' + n.state.replace('+', '-')}, n.state),
        el('div', {class: 'muted'}, 'CPU ' + n.cpus_allocated + '/' + n.cpus + ' · mem ' +
           mb(n.memory_allocated_mb) + '/' + mb(n.memory_mb)),
        n.reason ? el('div', {class: 'reason'}, n.reason) : null),
      el('div', {class: 'gpus'}, ...(cells.length ? cells : [el('div', {class: 'muted'}, 'no GPUs')])));
  });
  out.push(el('div', {class: 'grid'}, ...rows));
  return out;
}

function renderQueue(d) {
  const out = [el('h1', {}, 'Queue')];
  out.push(el('div', {class: 'stats'},
    stat('pending', d.pending_total, 'pending', 'pending'), stat('running', d.running.length, 'allocated', 'running'),
    stat('GPUs held', gpus(d.running.reduce((a, j) => a + j.gpus, 0)), '', 'gpus-held')));
  out.push(el('h2', {}, 'Pending, in scheduling order'));
  if (d.pending_total > d.pending.length) {
    out.push(el('p', {class: 'note'}, 'The first ' + d.pending.length + ' of ' + d.pending_total + ' pending jobs.'));
  }
  if (!d.pending.length) out.push(el('p', {class: 'note'}, 'No job is waiting.'));
  else out.push(table(['#', 'Job', 'Name', 'User', 'Account', 'Partition', 'GPUs', 'Priority', 'Reason',
                       'Expected start', 'Waiting'],
    d.pending.map(j => el('tr', {'data-pending': j.id},
      el('td', {class: 'num'}, String(j.position)), el('td', {}, jobLink(j.id, j.label)), el('td', {}, j.name),
      el('td', {}, j.user), el('td', {}, j.account), el('td', {}, j.partition), el('td', {}, j.gpus || '—'),
      el('td', {class: 'num'}, String(j.priority)),
      el('td', {class: 'reason', 'data-reason': j.reason},
         j.reason + (j.reason_detail ? ' (' + j.reason_detail + ')' : '')),
      el('td', {'data-expected-start': j.expected_start},
         j.expected_start ? slurmTime(j.expected_start) + (j.sched_nodes ? ' on ' + j.sched_nodes : '') : 'N/A'),
      el('td', {}, duration(j.waited_s))))));
  out.push(el('h2', {}, 'Running'));
  if (!d.running.length) out.push(el('p', {class: 'note'}, 'No job is running.'));
  else out.push(table(['Job', 'Name', 'User', 'Account', 'Partition', 'State', 'GPUs', 'Where', 'Run time', 'Limit'],
    d.running.map(j => el('tr', {'data-running': j.id},
      el('td', {}, jobLink(j.id, j.label)), el('td', {}, j.name), el('td', {}, j.user), el('td', {}, j.account),
      el('td', {}, j.partition), el('td', {}, j.state), el('td', {class: 'num', 'data-gpus': j.gpus}, gpus(j.gpus)),
      el('td', {}, j.placement.map(p => p.node + (p.gpus.length ? ' [GPU ' + p.gpus.map(g => g.index).join(',') + ']' : ''))
                               .join(' ')),
      el('td', {}, duration(j.run_s)), el('td', {}, limit(j.time_limit_s))))));
  return out;
}

// A round top for an axis: 1, 2, 5 or 10 times a power of ten, at least `v`.
function niceTop(v) {
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(v, 1))));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

// One account's chart: GPUs held per hour (bars), its quota and fair share (dashed lines, named
// in the key above the chart).
function usageChart(a, d) {
  const W = 560, H = 150, L = 36, R = 8, B = 20, n = a.usage.length;
  const top = niceTop(Math.max(1, ...a.usage, a.quota_gpus || 0, a.fair_share_gpus) * 1.1);
  const y = v => H - B - (v / top) * (H - B - 8);
  const s = svg('svg', {viewBox: '0 0 ' + W + ' ' + H, class: 'chart', role: 'img',
                        'aria-label': 'GPUs used per hour by ' + a.name});
  for (const v of [0, top / 2, top]) {
    s.appendChild(svg('line', {x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: '#e5e7eb'}));
    const lab = svg('text', {x: L - 5, y: y(v) + 4, 'text-anchor': 'end', class: 'axis'});
    lab.textContent = String(v);
    s.appendChild(lab);
  }
  const bw = (W - L - R) / n;
  a.usage.forEach((v, i) => {
    if (v <= 0) return;
    const r = svg('rect', {x: L + i * bw + 1, y: y(v), width: Math.max(1, bw - 2), height: y(0) - y(v),
                           fill: '#60a5fa', 'data-hour': i});
    const tip = svg('title', {});
    tip.textContent = slurmTime(d.start + i * d.bucket_s) + ': ' + v + ' GPUs';
    r.appendChild(tip);
    s.appendChild(r);
  });
  const hline = (v, colour) => {
    if (v === null || v === undefined) return;
    s.appendChild(svg('line', {x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: colour, 'stroke-width': 2,
                               'stroke-dasharray': '6 4'}));
  };
  hline(a.fair_share_gpus, '#d97706');
  hline(a.quota_gpus, '#16a34a');
  [[0, 'start'], [Math.floor(n / 2), 'middle'], [n - 1, 'end']].forEach(([i, anchor]) => {
    const x = anchor === 'start' ? L : anchor === 'end' ? W - R : L + i * bw + bw / 2;
    const t = svg('text', {x, y: H - 5, 'text-anchor': anchor, class: 'axis'});
    t.textContent = slurmTime(d.start + i * d.bucket_s).slice(5, 16).replace('T', ' ');
    s.appendChild(t);
  });
  return s;
}

function chartKey(a) {
  return el('div', {class: 'chartkey'},
    el('span', {class: 'k used'}, 'GPUs used'),
    a.quota_gpus === null ? el('span', {class: 'k none'}, 'no quota')
                          : el('span', {class: 'k quota'}, 'quota ' + a.quota_gpus),
    el('span', {class: 'k fair'}, 'fair share ' + gpus(a.fair_share_gpus)));
}

function renderTeams(d) {
  const out = [el('h1', {}, 'Teams'),
    el('p', {class: 'note'}, 'GPUs each account held, averaged per hour over the last ' + d.hours +
       ' hours (its sub-accounts included), against its quota and its fair share of the cluster\'s ' +
       d.total_gpus + ' GPUs.')];
  out.push(table(['Account', 'Parent', 'GPUs now', 'Quota', 'Limit', 'Fair share (GPUs)', 'Shares', 'Usage share',
                  'GPU-hours (' + d.hours + ' h)'],
    d.accounts.map(a => el('tr', {'data-account': a.name},
      el('td', {}, a.name), el('td', {}, a.parent || '—'),
      el('td', {class: 'num', 'data-gpus-now': a.gpus_now}, gpus(a.gpus_now)),
      el('td', {class: 'num'}, a.quota_gpus === null ? '—' : String(a.quota_gpus)),
      el('td', {class: 'num'}, a.limit_gpus === null ? '—' : String(a.limit_gpus)),
      el('td', {class: 'num', 'data-fair-share': a.fair_share_gpus}, gpus(a.fair_share_gpus)),
      el('td', {class: 'num'}, String(a.shares)),
      el('td', {class: 'num'}, (a.norm_usage * 100).toFixed(1) + '%'),
      el('td', {class: 'num', 'data-gpu-hours': a.gpu_hours}, gpus(a.gpu_hours))))));
  const cards = d.accounts.map(a => el('div', {class: 'card', 'data-chart': a.name},
    el('h3', {}, a.name, el('span', {class: 'muted'}, '  now ' + gpus(a.gpus_now) + ' GPUs')), chartKey(a),
    usageChart(a, d)));
  out.push(el('div', {class: 'cards'}, ...cards));
  return out;
}

function kv(pairs) {
  return el('dl', {class: 'kv'}, ...pairs.flatMap(([k, v, key]) =>
    [el('dt', {}, k), el('dd', {'data-field': key || k}, v === '' || v === null || v === undefined ? '—' : v)]));
}

function renderJob(d) {
  const j = d.job;
  const out = [el('h1', {}, 'Job ', el('span', {'data-job-id': j.id}, j.label), ' ',
                  el('span', {class: 'badge ' + j.state.toLowerCase()}, j.state))];
  out.push(kv([['Name', j.name], ['User', j.user], ['Account', j.account], ['Partition', j.partition],
    ['QOS', j.qos], ['Priority', String(j.priority)], ['Reason', j.state === 'PENDING' ? j.reason +
      (j.reason_detail ? ' (' + j.reason_detail + ')' : '') : '', 'reason'],
    ['GPUs', j.gpus ? gpus(j.gpus) : (j.gpus_asked || '—'), 'gpus'],
    ['Expected start', j.expected_start ? slurmTime(j.expected_start) + (j.sched_nodes ? ' on ' + j.sched_nodes : '')
                                         : 'N/A', 'expected_start'],
    ['Time limit', limit(j.time_limit_s)], ['Run time', duration(j.run_s)],
    ['Exit code', j.state === 'PENDING' || j.state === 'RUNNING' ? '' : j.exit_code + ':' + j.exit_signal, 'exit'],
    ['Restarts', String(j.restarts)], ['Dependency', j.dependency], ['Work dir', j.workdir]]));
  out.push(el('h2', {}, 'Timeline'));
  const ev = d.timeline;
  if (ev.length) {
    const last = ev[ev.length - 1].time, t1 = j.end_time ? last : Math.max(d.now, last);
    const t0 = ev[0].time, span = Math.max(1, t1 - t0);
    const bar = el('div', {class: 'timeline'});
    // Events close together (within 6% of the span) share one mark and one label.
    const groups = [];
    for (const e of ev) {
      const g = groups[groups.length - 1];
      if (g && (e.time - g.time) / span < 0.06) g.names.push(e.event);
      else groups.push({time: e.time, names: [e.event], first: e.event});
    }
    groups.forEach((g, i) => {
      const left = ((g.time - t0) / span) * 100;
      const m = el('div', {class: 'mark ' + g.names[g.names.length - 1], title: g.names.join(', ') + ' ' + slurmTime(g.time)});
      m.style.left = 'calc(' + left.toFixed(2) + '% - 6px)';
      const lab = el('div', {class: 'marklabel ' + (i % 2 ? 'below' : 'above')}, g.names.join(' · '));
      lab.style.left = left.toFixed(2) + '%';
      if (left < 10) lab.style.transform = 'translateX(-6px)';
      else if (left > 90) lab.style.transform = 'translateX(calc(-100% + 6px))';
      bar.appendChild(m);
      bar.appendChild(lab);
    });
    out.push(bar);
  }
  out.push(table(['Event', 'Time', 'Detail'], ev.map(e => el('tr', {'data-event': e.event},
    el('td', {}, e.event), el('td', {'data-time': e.time}, slurmTime(e.time)),
    el('td', {}, e.event === 'preempted' ? 'by job ' + e.by + ' (' + e.mode + ', ' + e.reason + ')'
                : e.event === 'end' ? e.state : '')))));
  out.push(el('h2', {}, 'Placement'));
  if (!d.placement.length) out.push(el('p', {class: 'note'}, j.state === 'PENDING' ? 'Not placed yet.' : 'No placement.'));
  else out.push(table(['Node', 'GPUs', 'CPUs', 'Memory', 'Tasks'], d.placement.map(p => el('tr', {'data-placed': p.node},
    el('td', {}, p.node),
    el('td', {'data-gpu-indexes': p.gpus.map(g => g.index).join(',')},
       p.gpus.map(g => 'GPU ' + g.index + (g.milli < 1000 ? ' (' + g.milli / 1000 + ')' : '')).join(', ') || '—'),
    el('td', {class: 'num'}, String(p.cpus)), el('td', {class: 'num'}, mb(p.memory_mb)),
    el('td', {class: 'num'}, String(p.tasks))))));
  out.push(el('h2', {}, 'Steps'));
  if (!d.steps.length) out.push(el('p', {class: 'note'}, 'No steps.'));
  else out.push(table(['Step', 'Name', 'Tasks', 'State', 'Nodes (GPUs)', 'Start', 'End', 'Exit'],
    d.steps.map(s => el('tr', {'data-step': s.id},
      el('td', {}, j.label + '.' + s.id), el('td', {}, s.name), el('td', {class: 'num'}, String(s.ntasks)),
      el('td', {}, s.state), el('td', {}, s.nodes.map(n => n.node + (n.gpus.length ? ' [' + n.gpus.join(',') + ']' : ''))
                                             .join(' ')),
      el('td', {}, slurmTime(s.start_time)), el('td', {}, slurmTime(s.end_time)),
      el('td', {class: 'num'}, String(s.exit_code))))));
  out.push(el('h2', {}, 'Output'));
  out.push(kv([['StdOut', d.output.stdout, 'stdout'], ['StdErr', d.output.stderr, 'stderr']]));
  if (j.state === 'PENDING') {
    // (Named, not linked: a link would open without the token, which only this page's requests carry.)
    out.push(el('p', {class: 'note why'}, 'Why is it pending: ', el('code', {}, 'muster why ' + j.id),
                ' (' + d.why_url + ').'));
  }
  return out;
}

// --- the page ----------------------------------------------------------------------------
const params = new URLSearchParams(location.search);
const view = params.get('view') || 'cluster';
const VIEWS = {
  cluster: {path: () => '/v1/ui/cluster', render: renderCluster, title: 'Cluster'},
  queue: {path: () => '/v1/ui/queue', render: renderQueue, title: 'Queue'},
  teams: {path: () => '/v1/ui/teams' + (params.get('hours') ? '?hours=' + encodeURIComponent(params.get('hours')) : ''),
          render: renderTeams, title: 'Teams'},
  job: {path: () => '/v1/ui/jobs/' + encodeURIComponent(params.get('id') || ''), render: renderJob,
        title: 'Job ' + (params.get('id') || '')},
};

async function refresh() {
  const v = VIEWS[view];
  const main = document.getElementById('main');
  if (!v) {
    main.replaceChildren(el('p', {class: 'error'}, 'Unknown view "' + view + '" (cluster, queue, teams or job).'));
    return;
  }
  try {
    const d = await getJson(v.path());
    main.replaceChildren(...v.render(d));
    document.getElementById('cluster-name').textContent = d.cluster;
    document.getElementById('who').textContent = d.caller ? 'signed in as ' + d.caller : '';
    document.getElementById('updated').textContent = 'updated ' + slurmTime(d.now);
    document.body.setAttribute('data-ready', view);
  } catch (e) {
    main.replaceChildren(el('p', {class: 'error', 'data-error': '1'}, 'Cannot load this view: ' + e.message));
    document.body.setAttribute('data-ready', 'error');
  }
}

document.addEventListener('DOMContentLoaded', () => {
  document.title = 'Muster · ' + (VIEWS[view] ? VIEWS[view].title : view);
  const nav = document.getElementById('nav-' + view);
  if (nav) nav.className = 'active';
  refresh();
  setInterval(refresh, REFRESH_MS);
});
