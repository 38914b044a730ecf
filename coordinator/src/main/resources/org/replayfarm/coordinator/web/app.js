// replay-farm's web UI: plain JavaScript over the coordinator's job API (no build step, no library).
// Pages, routed by the URL's fragment: #/ the jobs, #/job/ID a job, #/job/ID/image/K the diff viewer of
// image K, #/job/ID/range/N a typed buffer's differences. Every page returns a function that stops what
// it started (event streams, timers) when another page replaces it.
'use strict';

const $ = (sel, root = document) => root.querySelector(sel);
const main = () => document.getElementById('main');
let leave = () => {};

// a tolerance typed in the form: "" is 0; what is not a number goes as null, which POST /jobs refuses naming the field
function amount(text) {
  const t = String(text).trim();
  if (t === '') return 0;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

function esc(v) {
  return String(v ?? '').replace(/[&<>"']/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));
}

async function api(path, options = {}) {
  const r = await fetch(path, Object.assign({credentials: 'same-origin', headers: {'Accept': 'application/json'}}, options));
  const text = await r.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
  if (!r.ok) {
    const err = new Error((body && body.error) || (r.status + ' ' + r.statusText));
    err.status = r.status;
    err.body = body;
    throw err;
  }
  return body;
}

function fmtRate(v) { return v < 0 ? '–' : v >= 100 ? v.toFixed(0) + '/s' : v.toFixed(1) + '/s'; }
function fmtEta(s, state) {
  if (state !== 'running' || s < 0) return '–';
  if (s < 60) return s.toFixed(0) + ' s';
  if (s < 3600) return (s / 60).toFixed(1) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}
function fmtWhen(ms) { return ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : '–'; }
function short(id) { return id.length > 13 ? id.slice(0, 8) + '…' : id; }
function pct(p) { return p.groups_total ? Math.min(100, 100 * p.groups_done / p.groups_total) : (p.state === 'running' ? 0 : 100); }
function nodesText(nodes) {
  return (nodes || []).map(n => `<div title="${esc(n.node)}"><span class="mono">${esc(n.node.replace(/^akka:\/\/[^@]*@/, ''))}</span>
    ${n.groups} · ${fmtRate(n.groups_per_second)}</div>`).join('') || '<span class="dim">–</span>';
}
function stateBadge(s) { return `<span class="state ${esc(s)}">${esc(s)}</span>`; }
// what a finished job's comparison says, from its figures as replay watch reads them: faults or store conflicts
// leave the host's results incomplete; a differing texel or byte is different; nothing compared is host only
function jobResult(p) {
  if (p.state !== 'finished') return p.state === 'running' ? '' : 'none';
  if (p.faults > 0 || p.store_conflicts > 0 || p.nondeterministic_slices > 0) return 'incomplete';
  if (p.texels_differing > 0 || p.bytes_differing > 0) return 'different';
  if (p.texels_compared + p.bytes_compared === 0) return 'host only';
  if (p.order_dependent > 0) return 'order-dependent';
  return 'equal';
}

// ---------------------------------------------------------------- the jobs

function jobsPage() {
  const streams = new Map();
  let offset = 0;
  const limit = 50;
  main().innerHTML = `
    <h1>Jobs</h1>
    <section>
      <h2>Submit a capture</h2>
      <form class="submit" id="submit">
        <input type="file" id="capture" accept=".capture" required>
        <label>groups <input type="text" id="groups" value="every" title="every, or x,y,z; x,y,z"></label>
        <label>device <select id="device">
          <option>auto</option><option>recorded</option><option>none</option><option>cuda-cpu</option><option>cuda</option>
        </select></label>
        <label>ulp <input type="number" id="ulp" value="0" min="0" style="width:60px"></label>
        <label title="accept float values with |host - device| at most this (e.g. 1e-6); 0: off">abs <input type="text" id="abs" value="0" style="width:70px"></label>
        <label title="accept float values with |host - device| at most this times the larger magnitude (e.g. 1e-5); 0: off">rel <input type="text" id="rel" value="0" style="width:70px"></label>
        <button type="submit">Upload and start</button>
        <progress class="upload" id="upload" max="100" value="0"></progress>
        <span id="submit-msg" class="small"></span>
      </form>
    </section>
    <section>
      <label class="small">show <select id="result-filter">
        <option value="">every job</option><option>equal</option><option>order-dependent</option><option>different</option><option>incomplete</option>
        <option>host only</option><option value="none">failed or cancelled</option></select></label>
      <table id="jobs"><thead><tr>
        <th>Job</th><th>Capture</th><th>Selection</th><th>State</th><th>Result</th><th>Progress</th><th class="num">Groups</th>
        <th class="num">Rate</th><th class="num">ETA</th><th class="num">Faults</th><th class="num">In flight</th>
        <th class="num">Re-sent</th><th>Nodes (groups/s)</th><th>Accepted (UTC)</th><th></th></tr></thead><tbody></tbody></table>
      <p class="small dim" id="pager"></p>
    </section>`;

  // the result filter: a row whose result is not the one chosen is hidden (running jobs show under every job only)
  function filterRow(tr) {
    const want = $('#result-filter') ? $('#result-filter').value : '';
    tr.hidden = want !== '' && tr.dataset.result !== want;
  }
  $('#result-filter').onchange = () => document.querySelectorAll('#jobs tbody tr').forEach(filterRow);

  function row(j) {
    let tr = document.querySelector(`#jobs tr[data-job="${CSS.escape(j.job)}"]`);
    if (!tr) {
      tr = document.createElement('tr');
      tr.dataset.job = j.job;
      tr.innerHTML = `<td class="mono"><a href="#/job/${encodeURIComponent(j.job)}" title="${esc(j.job)}">${esc(short(j.job))}</a></td>
        <td class="capture"></td><td class="selection"></td><td class="st"></td><td class="result"></td>
        <td><div class="bar"><span></span></div></td><td class="num groups"></td><td class="num rate"></td>
        <td class="num eta"></td><td class="num faults"></td><td class="num inflight"></td><td class="num resent"></td>
        <td class="nodes small"></td><td class="when small"></td><td class="act"></td>`;
    }
    if (j.capture_name !== undefined) {
      tr.querySelector('.capture').textContent = j.capture_name;
      tr.querySelector('.selection').textContent = j.selection + (j.device ? ' · ' + j.device : '');
      tr.querySelector('.when').textContent = fmtWhen(j.accepted_at_millis);
      tr.querySelector('.nodes').innerHTML = nodesText(j.nodes);
    }
    update(tr, j);
    return tr;
  }

  function update(tr, p) {
    tr.dataset.state = p.state;
    const result = jobResult(p);
    tr.dataset.result = result;
    tr.querySelector('.result').innerHTML = result ? `<span class="result ${esc(result.replace(' ', '-'))}">${esc(result)}</span>` : '';
    filterRow(tr);
    tr.querySelector('.st').innerHTML = stateBadge(p.state) + (p.error && p.state === 'failed'
      ? ` <span class="small error" title="${esc(p.error)}">${esc(p.error.slice(0, 60))}</span>` : '');
    const bar = tr.querySelector('.bar');
    bar.className = 'bar ' + p.state;
    bar.firstElementChild.style.width = pct(p) + '%';
    tr.querySelector('.groups').textContent = `${p.groups_done} / ${p.groups_total}`;
    tr.querySelector('.rate').textContent = fmtRate(p.groups_per_second);
    tr.querySelector('.eta').textContent = fmtEta(p.eta_seconds, p.state);
    tr.querySelector('.faults').textContent = p.faults;
    tr.querySelector('.inflight').textContent = p.state === 'running' ? p.slices_in_flight : '–';
    tr.querySelector('.resent').textContent = p.slices_resent;
    const act = tr.querySelector('.act');
    if (p.state === 'running' && !act.querySelector('button')) {
      act.innerHTML = '<button class="danger cancel">Cancel</button>';
      act.querySelector('button').onclick = () => cancelJob(p.job, act);
    } else if (p.state !== 'running') {
      act.innerHTML = '';
    }
  }

  function follow(id) {
    if (streams.has(id)) return;
    const es = new EventSource(`/jobs/${encodeURIComponent(id)}/events`);
    streams.set(id, es);
    es.addEventListener('progress', ev => {
      const p = JSON.parse(ev.data);
      const tr = document.querySelector(`#jobs tr[data-job="${CSS.escape(id)}"]`);
      if (tr) update(tr, p);
      if (p.state !== 'running') { es.close(); streams.delete(id); }
    });
    es.onerror = () => { es.close(); streams.delete(id); }; // the next list refresh follows it again
  }

  async function refresh() {
    try {
      const page = await api(`/jobs?offset=${offset}&limit=${limit}`);
      const tbody = $('#jobs tbody');
      const wanted = page.jobs.map(j => j.job);
      [...tbody.children].forEach(tr => { if (!wanted.includes(tr.dataset.job)) tr.remove(); });
      page.jobs.forEach((j, i) => {
        const tr = row(j);
        if (tbody.children[i] !== tr) tbody.insertBefore(tr, tbody.children[i] || null);
        if (j.state === 'running') follow(j.job);
      });
      const pager = $('#pager');
      pager.innerHTML = page.total === 0 ? 'No jobs yet: submit a capture above, or <span class="mono">replay submit</span>.'
        : `${offset + 1}–${offset + page.jobs.length} of ${page.total} job(s), newest first. `
          + (offset > 0 ? '<a href="#" id="newer">newer</a> ' : '')
          + (offset + page.jobs.length < page.total ? '<a href="#" id="older">older</a>' : '');
      const newer = $('#newer'), older = $('#older');
      if (newer) newer.onclick = e => { e.preventDefault(); offset = Math.max(0, offset - limit); refresh(); };
      if (older) older.onclick = e => { e.preventDefault(); offset += limit; refresh(); };
      $('#conn').textContent = 'connected';
    } catch (e) {
      $('#conn').textContent = 'cannot list the jobs: ' + e.message;
    }
  }

  $('#submit').onsubmit = e => { e.preventDefault(); submit().then(refresh); };
  refresh();
  const timer = setInterval(refresh, 3000); // new jobs (others' submissions); running ones move over SSE
  return () => { clearInterval(timer); streams.forEach(es => es.close()); };
}

async function cancelJob(id, where) {
  if (where) where.innerHTML = '<span class="small dim">cancelling…</span>';
  try {
    return await api(`/jobs/${encodeURIComponent(id)}`, {method: 'DELETE'});
  } catch (e) {
    if (where) where.innerHTML = `<span class="small error">${esc(e.message)}</span>`;
    return null;
  }
}

function parseGroups(text) {
  const t = text.trim();
  if (t === '' || t === 'every') return 'every';
  return t.split(/\s*;\s*|\s+/).filter(Boolean).map(g => {
    const v = g.split(',').map(Number);
    while (v.length < 3) v.push(0);
    if (v.length !== 3 || v.some(n => !Number.isInteger(n) || n < 0)) throw new Error(`'${g}' is not a group x,y,z`);
    return v;
  });
}

function submit() {
  const msg = $('#submit-msg');
  const file = $('#capture').files[0];
  const bar = $('#upload');
  let groups;
  try { groups = parseGroups($('#groups').value); } catch (e) { msg.innerHTML = `<span class="error">${esc(e.message)}</span>`; return Promise.resolve(); }
  if (!file) { msg.textContent = 'choose a capture file'; return Promise.resolve(); }
  msg.textContent = 'uploading ' + file.name + '…';
  return new Promise(resolve => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/captures');
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.upload.onprogress = e => { if (e.lengthComputable) bar.value = 100 * e.loaded / e.total; };
    xhr.onerror = () => { msg.innerHTML = '<span class="error">the upload did not complete</span>'; resolve(); };
    xhr.onload = async () => {
      let body = {};
      try { body = JSON.parse(xhr.responseText); } catch (e) { /* not JSON */ }
      if (xhr.status !== 201) { msg.innerHTML = `<span class="error">${esc(body.error || xhr.status)}</span>`; resolve(); return; }
      bar.value = 100;
      try {
        const job = await api('/jobs', {method: 'POST', headers: {'Content-Type': 'application/json', 'Accept': 'application/json'},
          body: JSON.stringify({capture: body.sha256, groups, device: $('#device').value, ulp: Number($('#ulp').value) || 0,
            abs: amount($('#abs').value), rel: amount($('#rel').value),
            capture_name: file.name})});
        msg.innerHTML = `started <a class="mono" href="#/job/${encodeURIComponent(job.job)}">${esc(short(job.job))}</a>`;
      } catch (e) {
        msg.innerHTML = `<span class="error">${esc(e.message)}</span>`;
      }
      resolve();
    };
    xhr.send(file);
  });
}

// ---------------------------------------------------------------- a job

function chart(svg, series) {
  const W = Math.max(300, svg.clientWidth || 900), H = Math.max(120, svg.clientHeight || 220), L = 52, R = 60, T = 24, B = 28;
  const pts = series.points;
  const tMax = Math.max(1e-3, ...pts.map(p => p.seconds));
  const gMax = Math.max(1, series.groups_total);
  const rMax = Math.max(1e-9, ...pts.map(p => Math.max(0, p.groups_per_second)));
  const x = t => L + (W - L - R) * t / tMax;
  const y = g => H - B - (H - T - B) * g / gMax;
  const yr = r => H - B - (H - T - B) * r / rMax;
  let s = '';
  const stepG = Math.max(1, Math.ceil(gMax / 4));
  for (let g = 0; g <= gMax; g += stepG) {
    const yy = y(g);
    s += `<line class="grid" x1="${L}" x2="${W - R}" y1="${yy}" y2="${yy}"/>`
      + `<text class="axis" x="${L - 6}" y="${yy + 4}" text-anchor="end">${g}</text>`
      + `<text class="axis" x="${W - R + 6}" y="${yy + 4}">${(rMax * g / gMax).toPrecision(3)}</text>`;
  }
  for (let i = 0; i <= 5; i++) {
    const t = tMax * i / 5;
    s += `<text class="axis" x="${x(t)}" y="${H - 8}" text-anchor="middle">${t.toFixed(t < 10 ? 1 : 0)} s</text>`;
  }
  s += `<polyline class="done" points="${pts.map(p => x(p.seconds).toFixed(1) + ',' + y(p.groups_done).toFixed(1)).join(' ')}"/>`;
  s += `<polyline class="rate" points="${pts.filter(p => p.groups_per_second >= 0)
      .map(p => x(p.seconds).toFixed(1) + ',' + yr(p.groups_per_second).toFixed(1)).join(' ')}"/>`;
  s += `<text class="axis" x="${L}" y="${T - 10}">groups done (solid)</text>`
    + `<text class="axis" x="${W - R}" y="${T - 10}" text-anchor="end">groups/s (dashed)</text>`;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.dataset.points = pts.length;
  svg.dataset.last = pts.length ? pts[pts.length - 1].groups_done : 0;
  svg.innerHTML = s;
}

function results(id, path) { return `/jobs/${encodeURIComponent(id)}/results/${path}`; }

const reports = new Map();
async function report(id) {
  if (!reports.has(id)) reports.set(id, api(results(id, 'report.json')).catch(e => { reports.delete(id); throw e; }));
  return reports.get(id);
}

function jobPage(id) {
  let es = null, timer = null, lastSeries = 0;
  main().innerHTML = `
    <h1>Job <span class="mono">${esc(id)}</span> <span id="jstate"></span> <span id="jact"></span></h1>
    <section><dl class="kv" id="jfacts"></dl></section>
    <section><h2>Progress</h2><svg class="chart" id="chart" preserveAspectRatio="none"></svg></section>
    <div id="jreport"></div>`;

  function facts(p, info) {
    $('#jstate').innerHTML = stateBadge(p.state);
    const act = $('#jact');
    if (p.state === 'running' && !act.querySelector('button')) {
      act.innerHTML = '<button class="danger cancel">Cancel</button>';
      act.querySelector('button').onclick = async () => { const r = await cancelJob(id, act); if (r) show(r); };
    } else if (p.state !== 'running') act.innerHTML = '';
    const kv = [
      ['capture', (info ? esc(info.capture_name) + ' ' : '') + `<span class="mono dim">${esc(p.capture_sha256)}</span>`],
      ['selection', info ? esc(info.selection) + ' · device ' + esc(info.device) : ''],
      ['groups', `${p.groups_done} of ${p.groups_total}`], ['rate', fmtRate(p.groups_per_second) + ' · ETA ' + fmtEta(p.eta_seconds, p.state)],
      ['faults', p.faults], ['slices', `${p.slices_in_flight} in flight, ${p.slices_resent} re-sent, ${p.nondeterministic_slices} nondeterministic`],
      ['instructions', `${p.wave_instructions} wave, ${p.lane_instructions} lane`],
      ['nodes', `<div id="jnodes" class="small">${$('#jnodes') ? $('#jnodes').innerHTML : ''}</div>`],
      ['compared', p.elements_compared > 0 || p.elements_differing > 0
        ? `${p.texels_differing} of ${p.texels_compared} texels and ${p.elements_differing} of ${p.elements_compared} memory elements differ`
        : `${p.texels_differing} of ${p.texels_compared} texels and ${p.bytes_differing} of ${p.bytes_compared} bytes differ`],
    ];
    if (p.error && p.state === 'failed') kv.push(['error', `<span class="error">${esc(p.error)}</span>`]);
    $('#jfacts').innerHTML = kv.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('');
  }

  let info = null;
  async function drawSeries() {
    lastSeries = Date.now();
    try {
      const series = await api(`/jobs/${encodeURIComponent(id)}/progress`);
      chart($('#chart'), series);
      const nodes = $('#jnodes');
      if (nodes) nodes.innerHTML = nodesText(series.nodes);
    } catch (e) { /* the next event draws */ }
  }

  function show(p) {
    facts(p, info);
    if (Date.now() - lastSeries > 500 || p.state !== 'running') drawSeries();
    if (p.state === 'finished') showReport(id);
    else if (p.state !== 'running') $('#jreport').innerHTML = `<section class="dim">This job ${esc(p.state)}: it has no results.</section>`;
  }

  (async () => {
    try {
      const list = await api('/jobs?limit=500');
      info = list.jobs.find(j => j.job === id) || null;
      const p = await api(`/jobs/${encodeURIComponent(id)}`);
      show(p);
      if (p.state === 'running') {
        es = new EventSource(`/jobs/${encodeURIComponent(id)}/events`);
        es.addEventListener('progress', ev => {
          const q = JSON.parse(ev.data);
          show(q);
          if (q.state !== 'running') es.close();
        });
        timer = setInterval(() => { if (Date.now() - lastSeries > 2000) drawSeries(); }, 1000);
      }
    } catch (e) {
      main().innerHTML = `<section class="error">${esc(e.message)}</section>`;
    }
  })();
  return () => { if (es) es.close(); if (timer) clearInterval(timer); };
}

// the first wrong instruction (replay explain --first-divergence writes it into report.json)
function firstDivergence(f) {
  if (!f) return '';
  const g = (f.group || []).join(', ');
  if (!f.found) {
    return `<section id="first-divergence"><h2>First divergence</h2><p class="small">${esc(f.method)} on ${esc(f.device)}, group (${esc(g)}):
      none found in ${esc(f.instructions_compared)} instructions${(f.notes || []).map(n => `<div class="dim">${esc(n)}</div>`).join('')}</p></section>`;
  }
  const regs = list => (list || []).map(d => `<tr><td class="mono">${esc(d.register)}${d.lane !== undefined ? ` lane ${esc(d.lane)}` : ''}</td>
    <td class="mono host">${esc(d.host)}</td><td class="mono device">${esc(d.device)}</td></tr>`).join('');
  return `<section id="first-divergence"><h2>First divergence</h2>
    <p>group (${esc(g)}) wave ${esc(f.wave)} pc <span class="mono">${esc(f.pc)}</span>: <span class="mono insn">${esc(f.instruction)}</span>
      ${f.source_line ? `<div class="small mono">${esc(f.source_line)}</div>` : ''}<div class="small">${esc(f.why || f.kind)} · ${esc(f.method)} on ${esc(f.device)}</div></p>
    <table class="small"><thead><tr><th>Differs</th><th>Host</th><th>Device</th></tr></thead><tbody>${regs(f.differs)}</tbody></table>
    ${(f.operands || []).length ? `<table class="small"><thead><tr><th>Operand before it</th><th>Host</th><th>Device</th></tr></thead><tbody>${regs(f.operands)}</tbody></table>` : ''}
    ${(f.recent || []).length ? `<table class="small"><thead><tr><th>Before it</th><th>Host</th><th>Device</th></tr></thead><tbody>
      ${f.recent.map(x => `<tr><td class="mono">${esc(x.pc)} ${esc(x.instruction)}</td><td class="mono">${esc(x.host)}</td><td class="mono">${esc(x.device)}</td></tr>`).join('')}</tbody></table>` : ''}
    </section>`;
}

function groupsList(groups) {
  return (groups || []).map(g => `<span class="mono">${esc(g.group)}</span>${g.stored !== undefined ? ` <span class="dim">${g.stored}</span>` : ''}`).join(', ');
}

async function showReport(id) {
  const box = $('#jreport');
  if (!box || box.dataset.shown) return;
  box.dataset.shown = '1';
  let r;
  try { r = await report(id); } catch (e) { box.innerHTML = `<section class="error">report.json: ${esc(e.message)}</section>`; return; }
  const c = r.comparison || {};
  const res = r.result || {};
  let h = `<section id="summary"><h2>Comparison</h2><dl class="kv">
    <dt>result</dt><dd><span class="verdict ${esc(res.status)}">${esc(res.status)}</span> (exit status ${esc(res.exit_status)})
      ${(res.reasons || []).map(x => `<div class="small">${esc(x)}</div>`).join('')}</dd>
    <dt>device</dt><dd>${esc(r.device?.label)} <span class="dim">(${esc(r.device?.kind)}: ${esc(r.device?.reason)})</span></dd>
    <dt>tolerances</dt><dd>${esc(c.tolerances?.statement || c.tolerances?.description || 'exact')}</dd>
    <dt>kernel</dt><dd class="mono">${esc(r.kernel_demangled || r.kernel)} · wave${esc(r.wave_size)} · ${esc(r.groups)} groups · ${esc(r.selection)}</dd>
    <dt>timings</dt><dd>host ${(+r.timings?.host_seconds || 0).toFixed(2)} s · device ${(+r.timings?.device_seconds || 0).toFixed(2)} s · diff ${(+r.timings?.diff_seconds || 0).toFixed(2)} s</dd>
    </dl></section>`;
  h += firstDivergence(r.first_divergence);
  h += `<section><h2>Images</h2><table id="images"><thead><tr><th>#</th><th>Name</th><th>Format</th><th>Size</th><th>Recorded</th>
    <th class="num">Compared</th><th class="num">Differing</th><th class="num">Device-only</th><th class="num">Regions</th><th></th></tr></thead><tbody>`;
  for (const im of c.images || []) {
    const meta = (r.images || []).find(x => x.index === im.index) || {};
    h += `<tr data-image="${im.index}"><td>${im.index}</td><td>${esc(im.name)}</td><td class="mono small">${esc(meta.format)}</td>
      <td>${meta.width}×${meta.height}</td><td>${im.recorded ? 'yes' : '<span class="dim">no</span>'}</td>
      <td class="num">${im.compared}</td><td class="num">${im.differing}</td><td class="num">${im.device_only}</td>
      <td class="num">${im.regions_total}</td><td><a class="view" href="#/job/${encodeURIComponent(id)}/image/${im.index}">view</a></td></tr>`;
  }
  h += `</tbody></table></section>`;
  h += `<section><h2>Memory ranges</h2><table id="ranges"><thead><tr><th>#</th><th>Name</th><th>Type</th><th>View</th>
    <th class="num">Compared</th><th class="num">Differing</th><th class="num">Device-only</th><th class="num">Regions</th><th></th></tr></thead><tbody>`;
  for (const rg of c.ranges || []) {
    const v = rg.view || {};
    h += `<tr data-range="${rg.index}"><td>${rg.index}</td><td>${esc(rg.name)}</td><td class="mono small">${esc(rg.type_name || '')}</td>
      <td class="mono small">${esc(v.type || '')}${v.rows ? `[${v.rows}×${v.cols}]` : ''}</td>
      <td class="num">${rg.recorded ? rg.compared_elements ?? rg.compared : '<span class="dim">not recorded</span>'}</td>
      <td class="num">${rg.differing_elements ?? rg.differing}</td><td class="num">${rg.device_only_elements ?? rg.device_only}</td>
      <td class="num">${rg.regions_total}</td>
      <td>${rg.recorded ? `<a class="view" href="#/job/${encodeURIComponent(id)}/range/${rg.index}">view</a>` : ''}</td></tr>`;
    if (rg.order_dependent) {
      h += `<tr class="order-dependent" data-range-order="${rg.index}"><td></td><td colspan="8" class="small">${esc(rg.order_dependent.text)}</td></tr>`;
    }
  }
  h += `</tbody></table></section>`;
  const regions = [];
  (c.images || []).forEach(im => (im.regions || []).forEach((g, i) => regions.push(`<tr><td>image ${im.index}</td>
    <td><a href="#/job/${encodeURIComponent(id)}/image/${im.index}?region=${i}">mip ${g.mip} layer ${g.layer} x ${g.x0}..${g.x1}, y ${g.y0}..${g.y1}</a></td>
    <td class="num">${g.differing}</td><td class="num">${g.device_only}</td><td>${groupsList(g.groups)}</td></tr>`)));
  (c.ranges || []).forEach(rg => (rg.regions || []).forEach(g => regions.push(`<tr><td>range ${rg.index}</td>
    <td><a href="#/job/${encodeURIComponent(id)}/range/${rg.index}">bytes ${g.offset}..${g.offset + g.length - 1}${g.first_element >= 0 ? `, elements ${g.first_element}..${g.last_element}` : ''}</a></td>
    <td class="num">${g.differing}</td><td class="num">${g.device_only}</td><td>${groupsList(g.groups)}</td></tr>`)));
  h += `<section><h2>Regions</h2>${regions.length ? `<table id="all-regions"><thead><tr><th>Where</th><th>Box</th><th class="num">Differing</th>
    <th class="num">Device-only</th><th>Groups (stored)</th></tr></thead><tbody>${regions.join('')}</tbody></table>` : '<p class="dim">No differences.</p>'}</section>`;
  if ((r.faults || []).length) {
    h += `<section><h2>Faults</h2><table><thead><tr><th>Group</th><th>Wave</th><th>Lane</th><th>PC</th><th>Instruction</th><th>Message</th></tr></thead><tbody>
      ${r.faults.map(f => `<tr><td class="mono">${esc(JSON.stringify(f.group))}</td><td>${esc(f.wave)}</td><td>${esc(f.lane)}</td>
      <td class="mono">${esc(f.pc)}</td><td class="mono">${esc(f.instruction)}</td><td>${esc(f.message)}</td></tr>`).join('')}</tbody></table></section>`;
  }
  const s = r.sampling || {};
  h += `<section id="sampling"><h2>Sampling</h2><dl class="kv"><dt>mode</dt><dd>${esc(s.mode || 'none')}</dd>
    <dt>bursts</dt><dd>${esc(s.bursts ?? 0)}</dd><dt>duty achieved</dt><dd>${(100 * (s.duty_achieved || 0)).toFixed(2)} %</dd>
    <dt>pairs</dt><dd>${esc(s.pairs ?? 0)}</dd><dt>executions</dt><dd>${esc(s.executions?.total ?? 0)} (serialized ${esc(s.executions?.true ?? 0)},
    not ${esc(s.executions?.false ?? 0)}, unknown ${esc(s.executions?.unknown ?? 0)})</dd></dl></section>`;
  if (r.farm) {
    h += `<section><h2>Farm</h2><dl class="kv"><dt>slices</dt><dd>${r.farm.slices} (${r.farm.resent} re-sent, ${r.farm.duplicates} duplicates)</dd>
      <dt>out of rotation</dt><dd>${(r.farm.nodes_out_of_rotation || []).map(n => esc(n.node + ': ' + n.reason)).join('<br>') || 'none'}</dd></dl></section>`;
  }
  box.innerHTML = h;
}

// ---------------------------------------------------------------- the diff viewer

const FORMATS = { // bytes per texel, channels, how a channel reads
  FMT_8_NUM_UNORM: [1, 1, 'unorm8'], FMT_8_8_NUM_UNORM: [2, 2, 'unorm8'], FMT_8_8_8_8_NUM_UNORM: [4, 4, 'unorm8'],
  FMT_8_NUM_UINT: [1, 1, 'u8'], FMT_8_8_8_8_NUM_UINT: [4, 4, 'u8'],
  FMT_16_NUM_FLOAT: [2, 1, 'f16'], FMT_16_16_NUM_FLOAT: [4, 2, 'f16'], FMT_16_16_16_16_NUM_FLOAT: [8, 4, 'f16'],
  FMT_32_NUM_FLOAT: [4, 1, 'f32'], FMT_32_32_NUM_FLOAT: [8, 2, 'f32'], FMT_32_32_32_32_NUM_FLOAT: [16, 4, 'f32'],
  FMT_32_NUM_UINT: [4, 1, 'u32'], FMT_32_32_32_32_NUM_UINT: [16, 4, 'u32'], FMT_32_NUM_SINT: [4, 1, 'i32'],
};

function half(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, f = h & 1023;
  if (e === 0) return s * f * Math.pow(2, -24);
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * Math.pow(2, e - 15);
}

function channel(view, off, kind) {
  switch (kind) {
    case 'unorm8': { const b = view.getUint8(off); return {v: (b / 255).toPrecision(6), bits: '0x' + b.toString(16).padStart(2, '0')}; }
    case 'u8': { const b = view.getUint8(off); return {v: String(b), bits: '0x' + b.toString(16).padStart(2, '0')}; }
    case 'f16': { const b = view.getUint16(off, true); return {v: String(half(b)), bits: '0x' + b.toString(16).padStart(4, '0')}; }
    case 'f32': { const b = view.getUint32(off, true); return {v: String(view.getFloat32(off, true)), bits: '0x' + b.toString(16).padStart(8, '0')}; }
    case 'u32': { const b = view.getUint32(off, true); return {v: String(b), bits: '0x' + b.toString(16).padStart(8, '0')}; }
    case 'i32': { const b = view.getUint32(off, true); return {v: String(view.getInt32(off, true)), bits: '0x' + b.toString(16).padStart(8, '0')}; }
  }
  return null;
}

function loadImage(src) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('cannot load ' + src));
    img.src = src;
  });
}

async function raw(id, path) {
  const r = await fetch(results(id, path), {credentials: 'same-origin'});
  if (!r.ok) return null;
  return new DataView(await r.arrayBuffer());
}

function imagePage(id, index, query) {
  let cleanup = [];
  main().innerHTML = `<p class="dim">loading…</p>`;
  (async () => {
    let r;
    try { r = await report(id); } catch (e) { main().innerHTML = `<section class="error">${esc(e.message)}</section>`; return; }
    const im = (r.comparison.images || []).find(x => x.index === index);
    const meta = (r.images || []).find(x => x.index === index);
    if (!im || !meta) { main().innerHTML = `<section class="error">the report has no image ${index}</section>`; return; }
    const fmt = FORMATS[meta.format];
    const isFloat = fmt && (fmt[2] === 'f32' || fmt[2] === 'f16');
    const W = meta.width, H = meta.height;
    main().innerHTML = `
      <h1><a href="#/job/${encodeURIComponent(id)}">Job <span class="mono">${esc(short(id))}</span></a> · image ${index}
        <span class="dim">${esc(im.name)}</span></h1>
      <p class="small dim">${esc(meta.format)}, ${W}×${H} · ${im.compared} compared, ${im.differing} differing,
        ${im.device_only} device-only · footprint ${esc(im.footprint)}</p>
      <div class="viewer"><div>
        <div class="toolbar">
          <button id="mode-side" class="on">Side by side</button><button id="mode-one">Toggle</button>
          <span id="which" style="display:none"><button data-src="host" class="on">Host</button><button data-src="device">Device</button><button data-src="diff">Diff</button>
          <span class="small dim">(T switches)</span></span>
          <button id="fit">Fit</button><button id="z1">1:1</button><button id="ztexel">Texel</button>
          <span class="small" id="zoom"></span>
          <span id="range" style="display:${isFloat ? 'inline' : 'none'}">range <input type="number" id="rmin" step="any"> to
            <input type="number" id="rmax" step="any"> <button id="rauto">host min/max</button></span>
        </div>
        <div class="panes side" id="panes"></div>
      </div><div>
        <section class="inspector" id="inspector"><h2>Texel</h2><p class="dim small">Click a texel, or a region below.</p></section>
        <section><h2>Regions (${im.regions_total}${im.regions_total > (im.regions || []).length ? ', first ' + im.regions.length : ''})</h2>
          <div class="regions"><table id="region-list"><thead><tr><th>Box</th><th class="num">Diff</th><th>Groups</th></tr></thead><tbody>
          ${(im.regions || []).map((g, i) => `<tr data-region="${i}"><td class="mono small">${g.mip > 0 || g.layer > 0 ? `mip ${g.mip} layer ${g.layer} ` : ''}x ${g.x0}..${g.x1}, y ${g.y0}..${g.y1}</td>
            <td class="num">${g.differing + g.device_only}</td><td class="small">${groupsList(g.groups)}</td></tr>`).join('') || '<tr><td colspan="3" class="dim">no differences</td></tr>'}
          </tbody></table></div></section>
        <section><h2>Values in the report</h2><div class="regions"><table id="value-list"><tbody>
          ${(im.values || []).map((v, i) => `<tr data-value="${i}"><td class="mono small">${esc(v.where)}</td><td class="small">${esc(v.kind)}</td></tr>`).join('') || '<tr><td class="dim">none</td></tr>'}
          </tbody></table></div></section>
      </div></div>`;

    // the pictures: PNGs as the report drew them; float images drawn here from the raw texels with the range asked
    const sources = {};
    const names = [['host', 'host/image-' + index + '.png'], ['device', 'device/image-' + index + '.png'], ['diff', im.diff_png || '']];
    for (const [k, path] of names) {
      if (!path || (k !== 'host' && !im.recorded)) continue;
      try { sources[k] = await loadImage(results(id, path)); } catch (e) { /* not written */ }
    }
    const raws = {};
    async function rawOf(k) {
      if (!(k in raws)) raws[k] = await raw(id, `${k}/image-${index}.raw`);
      return raws[k];
    }
    let fmin = 0, fmax = 1;
    async function floatCanvas(k) {
      const dv = await rawOf(k);
      if (!dv) return null;
      const c = document.createElement('canvas');
      c.width = W; c.height = H;
      const ctx = c.getContext('2d');
      const out = ctx.createImageData(W, H);
      const [bpt, chans, kind] = fmt;
      const step = kind === 'f32' ? 4 : 2;
      for (let t = 0; t < W * H; t++) {
        for (let ch = 0; ch < 3; ch++) {
          const c2 = Math.min(ch, chans - 1);
          const off = t * bpt + c2 * step;
          const v = off + step <= dv.byteLength ? (kind === 'f32' ? dv.getFloat32(off, true) : half(dv.getUint16(off, true))) : 0;
          out.data[4 * t + ch] = Number.isNaN(v) ? 0 : Math.max(0, Math.min(255, 255 * (v - fmin) / ((fmax - fmin) || 1)));
        }
        out.data[4 * t + 3] = 255;
      }
      ctx.putImageData(out, 0, 0);
      return c;
    }
    async function hostMinMax() {
      const dv = await rawOf('host');
      if (!dv) return;
      const [bpt, chans, kind] = fmt;
      let lo = Infinity, hi = -Infinity;
      for (let off = 0; off + (kind === 'f32' ? 4 : 2) <= Math.min(dv.byteLength, W * H * bpt); off += kind === 'f32' ? 4 : 2) {
        const v = kind === 'f32' ? dv.getFloat32(off, true) : half(dv.getUint16(off, true));
        if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      }
      if (lo <= hi) { fmin = lo; fmax = hi > lo ? hi : lo + 1; }
      $('#rmin').value = fmin; $('#rmax').value = fmax;
    }
    if (isFloat) {
      await hostMinMax();
      for (const k of ['host', 'device']) { const c = await floatCanvas(k); if (c) sources[k] = c; }
      const redraw = async () => {
        fmin = parseFloat($('#rmin').value); fmax = parseFloat($('#rmax').value);
        for (const k of ['host', 'device']) { const c = await floatCanvas(k); if (c) sources[k] = c; }
        paint();
      };
      $('#rmin').onchange = redraw; $('#rmax').onchange = redraw;
      $('#rauto').onclick = async () => { await hostMinMax(); redraw(); };
    }

    // one view (zoom, pan) shared by every pane
    const view = {z: 1, ox: 0, oy: 0};
    let mode = 'side', single = 'host', sel = null, box = null;
    const panes = $('#panes');
    function build() {
      // the texel at the centre stays at the centre when the panes change size
      const [ow, oh] = paneSize();
      const cx = (ow / 2 - view.ox) / view.z, cy = (oh / 2 - view.oy) / view.z;
      const shown = mode === 'side' ? ['host', 'device', 'diff'].filter(k => sources[k]) : [single];
      panes.className = 'panes ' + (mode === 'side' ? 'side' : 'one');
      panes.style.gridTemplateColumns = mode === 'side' ? `repeat(${shown.length}, 1fr)` : '1fr';
      panes.innerHTML = shown.map(k => `<div class="pane" data-pane="${k}"><canvas></canvas><span class="label">${k}</span></div>`).join('');
      panes.querySelectorAll('.pane').forEach(attach);
      const [nw, nh] = paneSize();
      view.ox = nw / 2 - cx * view.z; view.oy = nh / 2 - cy * view.z;
      paint();
    }
    function paint() {
      panes.querySelectorAll('.pane').forEach(p => {
        const c = p.querySelector('canvas');
        const w = p.clientWidth, h = p.clientHeight;
        if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
        const ctx = c.getContext('2d');
        ctx.imageSmoothingEnabled = false;
        ctx.fillStyle = '#2b2f36';
        ctx.fillRect(0, 0, w, h);
        const src = sources[p.dataset.pane];
        if (src) ctx.drawImage(src, view.ox, view.oy, W * view.z, H * view.z);
        if (view.z >= 12) { // the texel grid
          ctx.strokeStyle = 'rgba(255,255,255,0.18)';
          ctx.beginPath();
          const x0 = Math.max(0, Math.floor(-view.ox / view.z)), x1 = Math.min(W, Math.ceil((w - view.ox) / view.z));
          const y0 = Math.max(0, Math.floor(-view.oy / view.z)), y1 = Math.min(H, Math.ceil((h - view.oy) / view.z));
          for (let x = x0; x <= x1; x++) { ctx.moveTo(view.ox + x * view.z + .5, view.oy + y0 * view.z); ctx.lineTo(view.ox + x * view.z + .5, view.oy + y1 * view.z); }
          for (let y = y0; y <= y1; y++) { ctx.moveTo(view.ox + x0 * view.z, view.oy + y * view.z + .5); ctx.lineTo(view.ox + x1 * view.z, view.oy + y * view.z + .5); }
          ctx.stroke();
        }
        if (box) {
          ctx.strokeStyle = '#38bdf8'; ctx.lineWidth = 2;
          ctx.strokeRect(view.ox + box.x0 * view.z - 2, view.oy + box.y0 * view.z - 2, (box.x1 - box.x0 + 1) * view.z + 4, (box.y1 - box.y0 + 1) * view.z + 4);
        }
        if (sel) {
          ctx.strokeStyle = '#22ff88'; ctx.lineWidth = 2;
          ctx.strokeRect(view.ox + sel.x * view.z, view.oy + sel.y * view.z, Math.max(view.z, 3), Math.max(view.z, 3));
        }
        ctx.lineWidth = 1;
      });
      $('#zoom').textContent = (view.z >= 1 ? view.z.toFixed(view.z < 10 ? 2 : 0) : view.z.toFixed(3)) + '×';
      main().dataset.zoom = view.z;
      const [pw, ph] = paneSize(); // the texel under the panes' centre (every pane shows the same)
      main().dataset.centre = ((pw / 2 - view.ox) / view.z).toFixed(2) + ',' + ((ph / 2 - view.oy) / view.z).toFixed(2);
    }
    function paneSize() { const p = panes.querySelector('.pane'); return p ? [p.clientWidth, p.clientHeight] : [400, 400]; }
    function fit() {
      const [w, h] = paneSize();
      view.z = Math.min(w / W, h / H);
      view.ox = (w - W * view.z) / 2; view.oy = (h - H * view.z) / 2;
      paint();
    }
    function centre(x, y, z) {
      const [w, h] = paneSize();
      view.z = z;
      view.ox = w / 2 - (x + 0.5) * z; view.oy = h / 2 - (y + 0.5) * z;
      paint();
    }
    function attach(p) {
      let drag = null;
      p.addEventListener('wheel', e => {
        e.preventDefault();
        const rect = p.getBoundingClientRect(), mx = e.clientX - rect.left, my = e.clientY - rect.top;
        const f = e.deltaY < 0 ? 1.25 : 0.8;
        const z = Math.max(0.05, Math.min(256, view.z * f));
        view.ox = mx - (mx - view.ox) * z / view.z; view.oy = my - (my - view.oy) * z / view.z; view.z = z;
        paint();
      }, {passive: false});
      p.addEventListener('mousedown', e => { drag = {x: e.clientX, y: e.clientY, ox: view.ox, oy: view.oy, moved: false}; });
      window.addEventListener('mousemove', e => {
        if (!drag) return;
        const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
        if (drag.moved) { view.ox = drag.ox + dx; view.oy = drag.oy + dy; paint(); }
      });
      p.addEventListener('mouseup', e => {
        if (drag && !drag.moved) {
          const rect = p.getBoundingClientRect();
          const x = Math.floor((e.clientX - rect.left - view.ox) / view.z), y = Math.floor((e.clientY - rect.top - view.oy) / view.z);
          if (x >= 0 && y >= 0 && x < W && y < H) inspect(x, y);
        }
        drag = null;
      });
    }
    const endDrag = () => {};
    window.addEventListener('mouseup', endDrag);
    cleanup.push(() => window.removeEventListener('mouseup', endDrag));

    async function inspect(x, y) {
      sel = {x, y};
      paint();
      const insp = $('#inspector');
      insp.dataset.x = x; insp.dataset.y = y;
      const v = (im.values || []).find(q => q.col === x && q.row === y);
      let rows = '', note = '', extra = '';
      if (v) {
        note = `<p class="small">${esc(v.kind)} · from the report · ${esc(v.unit === 'step' ? 'steps' : 'ulps')} apart</p>`;
        rows = v.host.map((hv, c) => `<tr data-ch="${c}"><td>${c}</td><td class="host mono">${esc(hv)}</td><td class="device mono">${esc(v.device[c])}</td>
          <td class="hbits mono dim">${esc(v.host_bits[c])}</td><td class="dbits mono dim">${esc(v.device_bits[c])}</td><td class="ulps num">${esc(v.ulps[c])}</td></tr>`).join('');
        extra = `<p class="small">stored by ${(v.groups || []).map(g => `<span class="mono group">${esc(g)}</span>`).join(', ') || '–'}</p>`;
        if ((v.stores || []).length) {
          extra += `<div class="stores"><h2>Stores to it</h2>${v.stores.map(s => `<div class="store">group <span class="mono">${esc(s.group)}</span>
            wave <span class="wave">${esc(s.wave)}</span> lane <span class="lane">${esc(s.lane)}</span> pc <span class="mono pc">${esc(s.pc)}</span>
            · ${esc(s.kind)} wrote <span class="mono">${esc(s.value)}</span>
            <span class="mono insn">${esc(s.instruction)}</span>${s.source ? `<span class="dim small">${esc(s.source)}</span>` : ''}</div>`).join('')}</div>`;
        }
      } else if (fmt) {
        const [bpt, chans, kind] = fmt;
        const hd = await rawOf('host'), dd = im.recorded ? await rawOf('device') : null;
        const off = (y * W + x) * bpt;
        const step = bpt / chans;
        note = `<p class="small dim">read from the raw images (the report lists its first ${(im.values || []).length} differing texels)</p>`;
        for (let c = 0; c < chans; c++) {
          const hv = hd && off + bpt <= hd.byteLength ? channel(hd, off + c * step, kind) : null;
          const dv = dd && off + bpt <= dd.byteLength ? channel(dd, off + c * step, kind) : null;
          rows += `<tr data-ch="${c}"><td>${c}</td><td class="host mono">${esc(hv ? hv.v : '–')}</td><td class="device mono">${esc(dv ? dv.v : '–')}</td>
            <td class="hbits mono dim">${esc(hv ? hv.bits : '')}</td><td class="dbits mono dim">${esc(dv ? dv.bits : '')}</td>
            <td class="ulps num">${hv && dv ? (hv.bits === dv.bits ? 'equal' : 'differs') : ''}</td></tr>`;
        }
      } else {
        note = `<p class="small dim">${esc(meta.format)}: not decoded here, and not among the report's values</p>`;
      }
      insp.innerHTML = `<h2>Texel (<span id="tx">${x}</span>, <span id="ty">${y}</span>)</h2>${note}
        ${rows ? `<table><thead><tr><th>Ch</th><th>Host</th><th>Device</th><th colspan="2">Bits</th><th class="num">Apart</th></tr></thead><tbody>${rows}</tbody></table>` : ''}${extra}`;
    }

    function region(i) {
      const g = im.regions[i];
      document.querySelectorAll('#region-list tr').forEach(tr => tr.classList.toggle('sel', tr.dataset.region === String(i)));
      box = g;
      const [w, h] = paneSize();
      const bw = g.x1 - g.x0 + 1, bh = g.y1 - g.y0 + 1;
      const z = Math.max(1, Math.min(64, Math.min(w / (bw + 8), h / (bh + 8))));
      centre((g.x0 + g.x1) / 2, (g.y0 + g.y1) / 2, z);
      // the region's first differing texel the report lists, else its corner
      const v = (im.values || []).find(q => q.col >= g.x0 && q.col <= g.x1 && q.row >= g.y0 && q.row <= g.y1);
      inspect(v ? v.col : g.x0, v ? v.row : g.y0);
    }
    document.querySelectorAll('#region-list tr[data-region]').forEach(tr => tr.onclick = () => region(Number(tr.dataset.region)));
    document.querySelectorAll('#value-list tr[data-value]').forEach(tr => tr.onclick = () => {
      const v = im.values[Number(tr.dataset.value)];
      centre(v.col, v.row, 32);
      inspect(v.col, v.row);
    });
    $('#mode-side').onclick = () => { mode = 'side'; $('#mode-side').classList.add('on'); $('#mode-one').classList.remove('on'); $('#which').style.display = 'none'; build(); };
    $('#mode-one').onclick = () => { mode = 'one'; $('#mode-one').classList.add('on'); $('#mode-side').classList.remove('on'); $('#which').style.display = 'inline'; build(); };
    const pick = k => { if (!sources[k]) return; single = k; document.querySelectorAll('#which button').forEach(b => b.classList.toggle('on', b.dataset.src === k)); build(); };
    document.querySelectorAll('#which button').forEach(b => b.onclick = () => pick(b.dataset.src));
    const key = e => {
      if (mode === 'one' && (e.key === 't' || e.key === 'T')) {
        const order = ['host', 'device', 'diff'].filter(k => sources[k]);
        pick(order[(order.indexOf(single) + 1) % order.length]);
      }
    };
    window.addEventListener('keydown', key);
    cleanup.push(() => window.removeEventListener('keydown', key));
    $('#fit').onclick = fit;
    $('#z1').onclick = () => { const [w, h] = paneSize(); centre((w / 2 - view.ox) / view.z, (h / 2 - view.oy) / view.z, 1); };
    $('#ztexel').onclick = () => sel ? centre(sel.x, sel.y, 48) : null;
    const resize = () => paint();
    window.addEventListener('resize', resize);
    cleanup.push(() => window.removeEventListener('resize', resize));
    build();
    fit();
    const q = new URLSearchParams(query || '');
    if (q.has('region') && im.regions[Number(q.get('region'))]) region(Number(q.get('region')));
    main().dataset.ready = 'image';
  })();
  return () => cleanup.forEach(f => f());
}

// ---------------------------------------------------------------- a typed buffer

function rangePage(id, index) {
  main().innerHTML = `<p class="dim">loading…</p>`;
  (async () => {
    let r;
    try { r = await report(id); } catch (e) { main().innerHTML = `<section class="error">${esc(e.message)}</section>`; return; }
    const rg = (r.comparison.ranges || []).find(x => x.index === index);
    if (!rg) { main().innerHTML = `<section class="error">the report has no range ${index}</section>`; return; }
    const v = rg.view || {};
    const shaped = v.rows > 0;
    main().innerHTML = `
      <h1><a href="#/job/${encodeURIComponent(id)}">Job <span class="mono">${esc(short(id))}</span></a> · range ${index}
        <span class="dim">${esc(rg.name)}</span></h1>
      <p class="small dim">${esc(rg.type_name || '')} viewed as ${esc(v.type)}${shaped ? `[${v.rows}×${v.cols}]` : ''} (${esc(v.source)}) ·
        ${rg.compared_elements} of ${rg.elements} ${esc(v.unit)}s compared, ${rg.differing_elements} differing, ${rg.device_only_elements} device-only
        ${rg.values.length < rg.differing_elements + rg.device_only_elements ? ` · the report lists the first ${rg.values.length}` : ''}</p>
      ${rg.order_dependent ? `<p class="small order-dependent">${esc(rg.order_dependent.text)}</p>` : ''}
      <section><h2>Differing ${esc(v.unit)}s</h2><table id="range-values"><thead><tr><th class="num">Index</th>${shaped ? '<th class="num">Row</th><th class="num">Col</th>' : ''}
        <th>Host</th><th>Device</th><th>Bits (host / device)</th><th class="num">Apart</th><th>Groups</th></tr></thead><tbody>
        ${rg.values.map(e => `<tr data-index="${e.index}"><td class="num">${e.index}</td>${shaped ? `<td class="num">${e.row}</td><td class="num">${e.col}</td>` : ''}
          <td class="mono host">${e.host.map(esc).join(', ')}</td><td class="mono device">${e.device.map(esc).join(', ')}</td>
          <td class="mono small dim">${e.host_bits.map(esc).join(',')} / ${e.device_bits.map(esc).join(',')}</td>
          <td class="num ulps">${e.ulps.map(u => u < 0 ? 'NaN/inf' : u).join(', ')} ${esc(e.unit)}</td>
          <td class="small">${(e.groups || []).map(esc).join(', ')}</td></tr>${(e.stores || []).length ? `<tr class="stores" data-stores="${e.index}">
          <td></td><td colspan="${shaped ? 7 : 5}" class="small">${e.stores.map(st => `<div class="store">group <span class="mono">${esc(st.group)}</span>
            wave ${esc(st.wave)} lane ${esc(st.lane)} pc <span class="mono">${esc(st.pc)}</span> · ${esc(st.kind)} wrote
            <span class="mono">${esc(st.value)}</span> <span class="mono insn">${esc(st.instruction)}</span>${st.source ? ` <span class="dim">${esc(st.source)}</span>` : ''}</div>`).join('')}</td></tr>` : ''}`).join('') || `<tr><td colspan="8" class="dim">none</td></tr>`}
      </tbody></table></section>
      ${rg.heat_map_png ? `<section><h2>Heat map</h2><p class="small dim">one block per element, row-major: black equal, yellow (1 ulp) to red
        (2^20 ulps or more), magenta NaN/inf or an integer difference, dark grey not compared</p>
        <img class="heat" id="heat" src="${results(id, rg.heat_map_png)}" alt="heat map"></section>` : ''}
      <section><h2>Regions</h2><table><thead><tr><th>Bytes</th><th>Elements</th><th class="num">Differing</th><th class="num">Device-only</th><th>Groups</th></tr></thead><tbody>
        ${(rg.regions || []).map(g => `<tr><td class="mono">${g.offset}..${g.offset + g.length - 1}</td><td>${g.first_element >= 0 ? g.first_element + '..' + g.last_element : '–'}</td>
          <td class="num">${g.differing}</td><td class="num">${g.device_only}</td><td class="small">${groupsList(g.groups)}</td></tr>`).join('')}
      </tbody></table></section>`;
    const heat = $('#heat');
    if (heat) heat.onload = () => { const f = Math.max(1, Math.floor(640 / heat.naturalWidth)); heat.style.width = heat.naturalWidth * f + 'px'; };
    main().dataset.ready = 'range';
  })();
  return () => {};
}

// ---------------------------------------------------------------- routing

function route() {
  leave();
  main().dataset.ready = '';
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, query] = hash.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'job' && parts[1] && parts[2] === 'image') leave = imagePage(parts[1], Number(parts[3]), query);
  else if (parts[0] === 'job' && parts[1] && parts[2] === 'range') leave = rangePage(parts[1], Number(parts[3]));
  else if (parts[0] === 'job' && parts[1]) leave = jobPage(parts[1]);
  else leave = jobsPage();
}

window.addEventListener('hashchange', route);
route();
