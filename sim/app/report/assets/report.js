// dlsim report: the page of one run. The data are the result's job records as typed arrays (one per field),
// the Gantt's slices lane by lane, and, with an event log, each job's lines; see README.md beside this file.
'use strict';

const A = {};        // the typed arrays, by name
let IDS = null;      // job ids (parsed after the first Gantt draw)
let selected = -1;   // the selected job
const N = META.jobs;
const G = META.gantt;
const KIND = META.event_kinds;

/// The binary block: base64 -> bytes (through fetch of a data: URL, which decodes natively), then views.
async function decodeArrays() {
  const text = $('dlsim-blob').textContent.trim();
  let buf;
  try {
    buf = await (await fetch('data:application/octet-stream;base64,' + text)).arrayBuffer();
  } catch (e) {
    const bin = atob(text), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
    buf = bytes.buffer;
  }
  const types = { f64: Float64Array, f32: Float32Array, u32: Uint32Array, i32: Int32Array, u8: Uint8Array };
  for (const [name, [offset, count, type]] of Object.entries(META.arrays)) A[name] = new types[type](buf, offset, count);
}

function ids() {
  if (IDS === null) IDS = JSON.parse($('dlsim-ids').textContent);
  return IDS;
}
function jobName(j) { return ids()[j]; }
function jobLink(j) {
  return el('a', { class: 'job', onclick: () => selectJob(j) }, jobName(j));
}

// ---------------------------------------------------------------------------------------------- summary

function summaryTables() {
  const c = META.config, s = META.summary, r = META.run;
  $('title').textContent = `dlsim report: ${c.policy || '?'} on ${(c.cluster && c.cluster.path) || '?'}`;
  $('subtitle').textContent = `${META.result}` + (META.event_log ? ` with event log ${META.event_log}` : '') +
      ` · run ${META.run_id} · dlsim ${r.version || '?'}`;
  const kv = (table, rows) => {
    for (const [k, v, code] of rows)
      table.append(el('tr', {}, el('td', {}, k), el('td', code ? { class: 'code' } : {}, v)));
  };
  const gpus = c.cluster && c.cluster.gpus_by_type ?
      Object.entries(c.cluster.gpus_by_type).map(([t, n]) => `${n} ${t}`).join(', ') : '?';
  const tr = c.trace || {};
  kv($('config'), [
    ['policy', `${c.policy}`],
    ['params', JSON.stringify(c.params || {}), true],
    ['placement', `${c.placement || ''} ${c.placement_params ? JSON.stringify(c.placement_params) : ''}`],
    ['trace', `${tr.path || '?'} (${tr.format || '?'})`, true],
    ['cluster', `${(c.cluster && c.cluster.path) || '?'}`, true],
    ['GPUs', `${c.cluster ? c.cluster.gpus : '?'}: ${gpus}`],
    ['seed', `${c.seed}`],
    ['jobs', `${fmtNum(s.jobs)}: ${fmtNum(s.finished)} finished, ${fmtNum(s.rejected)} rejected, ` +
             `${fmtNum(s.unfinished)} unfinished`],
    ['wall', `${fmtNum(r.wall_seconds)} s (policy ${fmtNum(r.policy_seconds)} s in ${fmtNum(r.policy_calls)} calls)`],
  ]);
  const per = (x) => s.jobs ? fmtNum(x / s.jobs) : 'n/a';
  kv($('figures'), [
    ['JCT', `avg ${fmtDur(s.avg_jct)} · p50 ${fmtDur(s.p50_jct)} · p95 ${fmtDur(s.p95_jct)} · p99 ${fmtDur(s.p99_jct)}`],
    ['preemptions', `${fmtNum(s.preemptions)} (${per(s.preemptions)} per job)`],
    ['migrations', `${fmtNum(s.migrations)} (${per(s.migrations)} per job)`],
    ['resizes', `${fmtNum(s.resizes)}`],
    ['queueing delay', `avg ${fmtDur(s.avg_queueing_delay)}`],
    ['pending time', `avg ${fmtDur(s.avg_pending_time)} · p95 ${fmtDur(s.p95_pending_time)}`],
    ['makespan', fmtDur(s.makespan)],
    ['GPU utilisation', s.gpu_utilization === null ? 'n/a' : (100 * s.gpu_utilization).toFixed(1) + ' %' +
        (s.gpu_utilization_by_type ? ' (' + Object.entries(s.gpu_utilization_by_type)
            .map(([t, u]) => `${t} ${u === null ? 'n/a' : (100 * u).toFixed(1) + ' %'}`).join(', ') + ')' : '')],
    ['fairness ρ', `max ${fmtNum(s.ftf_rho_max)} · mean ${fmtNum(s.ftf_rho_mean)}`],
    ['restarts', `${fmtNum(s.restarts)} (${fmtNum(s.restart_gpu_seconds)} GPU-s)`],
  ]);
  const box = $('reasons-summary');
  if (s.pending_reasons && Object.keys(s.pending_reasons).length) {
    const t = el('table', { class: 'grid', id: 'reasons-table' },
                 el('tr', {}, el('th', {}, 'reason'), el('th', {}, 'job-hours'), el('th', {}, 'GPU-hours')));
    for (const [k, v] of Object.entries(s.pending_reasons))
      t.append(el('tr', {}, el('td', {}, k), el('td', { class: 'num' }, fmtNum(v.job_hours)),
                  el('td', { class: 'num' }, fmtNum(v.gpu_hours))));
    box.append(t);
  } else {
    box.append(el('p', { class: 'muted' }, s.pending_reasons ? 'no job waited.' :
                  'this result has no summary.pending_reasons.'));
  }
  $('footer').textContent = `${fmtNum(N)} jobs · ${fmtNum(G.lanes.length)} lanes · ` +
      `${fmtNum(A.slice_job.length)} slices` + (META.event_log ? ` · ${fmtNum(META.event_lines)} event-log lines` : '');
}

// ---------------------------------------------------------------------------------------------- Gantt

const gantt = {
  canvas: null, ctx: null, left: 96, bottom: 22,
  t0: 0, t1: 1,             // visible time, seconds from G.t0
  l0: 0, lanePx: 1,         // first visible lane (fractional) and CSS pixels per lane
  tMax: 1, pending: false, drag: null,
  typeRGB: [], jobRGB: [], cov: null, who: null, hl: null,
};

function hexRGB(h) { return [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)]; }

/// The first slice of lane L whose end is after t (a lane's slices never overlap, so ends are sorted).
function firstEndingAfter(L, t) {
  let lo = A.lane_offsets[L], hi = A.lane_offsets[L + 1];
  const end = A.slice_end;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (end[mid] <= t) lo = mid + 1; else hi = mid; }
  return lo;
}

function ganttInit() {
  const g = gantt;
  g.canvas = $('gantt');
  let tMax = 0;
  for (let i = 0; i < A.slice_end.length; ++i) if (A.slice_end[i] > tMax) tMax = A.slice_end[i];
  g.tMax = tMax > 0 ? tMax : 1;
  g.typeRGB = META.types.map((_, i) => hexRGB(seriesColour(i)));
  g.jobRGB = PALETTE.map(hexRGB);
  $('gantt-note').textContent = G.from_event_log ?
      `Lanes are GPUs (node and GPU number; the lowest free GPUs of a node go to each start), from the event log ${META.event_log}.` :
      'No event log given: each job is drawn once per requested GPU over its lifetime, first start to finish, in rows ' +
      'per GPU type (rows are not GPUs); preemptions, moves and resizes are not shown. Run with --event-log and pass ' +
      'it to dlsim report --event-log for the GPUs.';
  ganttReset();
  const c = g.canvas;
  c.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = c.getBoundingClientRect(), f = Math.exp((e.deltaY || e.deltaX) * 0.0015);
    if (e.shiftKey) {
      const ph = r.height - g.bottom, y = e.clientY - r.top, lane = g.l0 + y / g.lanePx;
      g.lanePx = Math.min(40, Math.max(ph / G.lanes.length, g.lanePx / f));
      g.l0 = lane - y / g.lanePx;
    } else {
      const pw = r.width - g.left, x = Math.max(0, e.clientX - r.left - g.left), t = g.t0 + x / pw * (g.t1 - g.t0);
      let span = (g.t1 - g.t0) * f;
      span = Math.min(g.tMax * 1.2, Math.max(1e-3, span));
      g.t0 = t - x / pw * span; g.t1 = g.t0 + span;
    }
    ganttClamp(); ganttRequest();
  }, { passive: false });
  c.addEventListener('mousedown', (e) => {
    g.drag = { x: e.clientX, y: e.clientY, t0: g.t0, t1: g.t1, l0: g.l0, moved: false };
    c.style.cursor = 'grabbing';
  });
  window.addEventListener('mousemove', (e) => {
    if (!g.drag) { ganttHover(e); return; }
    const r = c.getBoundingClientRect(), dx = e.clientX - g.drag.x, dy = e.clientY - g.drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) g.drag.moved = true;
    const span = g.drag.t1 - g.drag.t0;
    g.t0 = g.drag.t0 - dx / (r.width - g.left) * span; g.t1 = g.t0 + span;
    g.l0 = g.drag.l0 - dy / g.lanePx;
    ganttClamp(); ganttRequest();
  });
  window.addEventListener('mouseup', (e) => {
    if (!g.drag) return;
    const moved = g.drag.moved;
    g.drag = null; c.style.cursor = 'grab';
    if (!moved && e.target === c) {
      const j = ganttHit(e);
      if (j >= 0) selectJob(j);
    }
  });
  $('gantt-reset').addEventListener('click', () => { ganttReset(); ganttRequest(); });
  window.addEventListener('resize', ganttRequest);
}

function ganttReset() {
  const g = gantt, h = g.canvas.getBoundingClientRect().height - g.bottom;
  g.t0 = 0; g.t1 = g.tMax * 1.01; g.l0 = 0; g.lanePx = h / Math.max(1, G.lanes.length);
}

function ganttClamp() {
  const g = gantt, h = g.canvas.getBoundingClientRect().height - g.bottom;
  const visible = h / g.lanePx;
  g.l0 = Math.max(0, Math.min(g.l0, G.lanes.length - visible));
}

function ganttRequest() {
  if (gantt.pending) return;
  gantt.pending = true;
  requestAnimationFrame(() => { gantt.pending = false; ganttDraw(); });
}

/// Draws the visible part. Per lane, the slices in view are found by binary search; each pixel column gets
/// the share of it that jobs cover. A column covered by one job is drawn in that job's colour; a column
/// several jobs share (zoomed out) is the lane's GPU type's colour, as dark as its covered share. Lanes
/// thinner than a pixel add up into the pixel row they fall in. The cost is the slices in view plus one pass
/// over the pixels, whatever the zoom.
function ganttDraw() {
  const g = gantt, { ctx, w, h, dpr } = fitCanvas(g.canvas);
  g.ctx = ctx;
  const pwCss = w - g.left, phCss = h - g.bottom;
  const PW = Math.max(1, Math.floor(pwCss * dpr)), PH = Math.max(1, Math.floor(phCss * dpr));
  if (!g.cov || g.cov.length !== PW) { g.cov = new Float32Array(PW); g.who = new Int32Array(PW); g.hl = new Uint8Array(PW); }
  const cov = g.cov, who = g.who, hl = g.hl;
  const img = ctx.createImageData(PW, PH), px = new Uint32Array(img.data.buffer);
  px.fill(0xffffffff);
  const nL = G.lanes.length, lanePxD = g.lanePx * dpr;
  const first = Math.max(0, Math.floor(g.l0)), last = Math.min(nL, Math.ceil(g.l0 + PH / lanePxD));
  const tA = g.t0, k = PW / (g.t1 - g.t0);
  const S = A.slice_start, E = A.slice_end, J = A.slice_job;
  let drawn = 0;
  let rowY = -1, rowLanes = 0, rowType = 0;
  const flush = (y0, y1, lanes) => {  // writes the accumulated columns into pixel rows y0..y1-1
    const ya = Math.max(0, y0), yb = Math.min(PH, y1);
    if (yb <= ya) return;
    const [tr, tg, tb] = g.typeRGB[rowType] || [120, 120, 120];
    for (let x = 0; x < PW; ++x) {
      const c = cov[x] / lanes;
      if (c <= 0 && !hl[x]) continue;
      let r, gg, b;
      if (hl[x]) { r = 20; gg = 20; b = 20; }
      else if (who[x] >= 0 && c > 0.98) { [r, gg, b] = g.jobRGB[who[x] % g.jobRGB.length]; }
      else {
        const a = Math.min(1, 0.15 + 0.85 * c);
        r = 255 - a * (255 - tr); gg = 255 - a * (255 - tg); b = 255 - a * (255 - tb);
      }
      const v = (255 << 24) | (b << 16) | (gg << 8) | r;
      for (let y = ya; y < yb; ++y) px[y * PW + x] = v;
    }
  };
  const reset = () => { cov.fill(0); who.fill(-2); hl.fill(0); };
  reset();
  const gap = lanePxD >= 4 ? 1 : 0;
  for (let L = first; L < last; ++L) {
    const yTop = (L - g.l0) * lanePxD;
    const y = Math.floor(yTop);
    if (lanePxD < 1) {
      if (y !== rowY) {
        if (rowY >= 0) flush(rowY, rowY + 1, rowLanes);
        reset(); rowY = y; rowLanes = 0; rowType = A.lane_type[L];
      }
      rowLanes++;
    } else {
      reset(); rowType = A.lane_type[L];
    }
    const hi = A.lane_offsets[L + 1];
    for (let i = firstEndingAfter(L, tA); i < hi && S[i] < g.t1; ++i) {
      ++drawn;
      const x0 = Math.max(0, (S[i] - tA) * k), x1 = Math.min(PW, (E[i] - tA) * k);
      if (x1 <= x0) continue;
      const j = J[i], c0 = Math.floor(x0), c1 = Math.min(PW - 1, Math.floor(x1 - 1e-9));
      if (j === selected) for (let x = c0; x <= c1; ++x) hl[x] = 1;
      if (c0 === c1) {
        cov[c0] += x1 - x0;
        who[c0] = who[c0] === -2 && x1 - x0 > 0.98 ? j : -1;
        continue;
      }
      cov[c0] += c0 + 1 - x0; who[c0] = who[c0] === -2 && c0 + 1 - x0 > 0.98 ? j : -1;
      for (let x = c0 + 1; x < c1; ++x) { cov[x] += 1; who[x] = who[x] === -2 ? j : -1; }
      cov[c1] += x1 - c1; who[c1] = who[c1] === -2 && x1 - c1 > 0.98 ? j : -1;
    }
    if (lanePxD >= 1) flush(y, Math.floor(yTop + lanePxD) - gap, 1);
  }
  if (lanePxD < 1 && rowY >= 0) flush(rowY, rowY + 1, rowLanes);
  ctx.clearRect(0, 0, w, h);
  ctx.putImageData(img, Math.round(g.left * dpr), 0);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  // Job ids on slices wide enough to hold them.
  if (g.lanePx >= 12) {
    ctx.font = '11px system-ui, sans-serif'; ctx.fillStyle = '#111'; ctx.textBaseline = 'middle'; ctx.textAlign = 'left';
    const kc = pwCss / (g.t1 - g.t0);
    for (let L = first; L < last; ++L) {
      const yc = (L - g.l0) * g.lanePx + g.lanePx / 2;
      const hi = A.lane_offsets[L + 1];
      for (let i = firstEndingAfter(L, tA); i < hi && S[i] < g.t1; ++i) {
        const x0 = Math.max(0, (S[i] - tA) * kc), x1 = Math.min(pwCss, (E[i] - tA) * kc);
        if (x1 - x0 < 36) continue;
        const name = jobName(J[i]);
        ctx.save(); ctx.beginPath(); ctx.rect(g.left + x0, yc - 7, x1 - x0 - 2, 14); ctx.clip();
        ctx.fillStyle = J[i] === selected ? '#fff' : '#111';
        ctx.fillText(name, g.left + x0 + 3, yc); ctx.restore();
      }
    }
  }
  // Lane labels: each lane when there is room, else every k-th.
  ctx.fillStyle = '#fafafa'; ctx.fillRect(0, 0, g.left, h);
  ctx.font = '11px system-ui, sans-serif'; ctx.fillStyle = '#333'; ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
  const every = Math.max(1, Math.ceil(13 / g.lanePx));
  for (let L = Math.ceil(first / every) * every; L < last; L += every)
    ctx.fillText(G.lanes[L], g.left - 4, (L - g.l0) * g.lanePx + Math.max(g.lanePx, 1) / 2);
  // Time axis.
  ctx.fillStyle = '#fff'; ctx.fillRect(g.left, phCss, pwCss, g.bottom);
  ctx.strokeStyle = '#999'; ctx.strokeRect(g.left + .5, .5, pwCss - 1, phCss);
  const span = g.t1 - g.t0, unit = span > 5 * 86400 ? 86400 : span > 4 * 3600 ? 3600 : span > 300 ? 60 : 1;
  const uname = { 86400: 'd', 3600: 'h', 60: 'min', 1: 's' }[unit];
  ctx.fillStyle = '#333'; ctx.textAlign = 'center'; ctx.textBaseline = 'alphabetic';
  for (const v of ticks((g.t0) / unit, (g.t1) / unit, Math.max(2, Math.floor(pwCss / 90)))) {
    const x = g.left + (v * unit - g.t0) / span * pwCss;
    ctx.fillRect(x, phCss, 1, 4);
    ctx.fillText(fmtNum(v) + ' ' + uname, x, phCss + 15);
  }
  $('gantt-info').textContent = `lanes ${first}–${last - 1} of ${nL} · ${fmtNum(drawn)} slices in view`;
  if (!window.dlsimReady) {
    window.dlsimReady = true;
    window.dlsimReadyAt = performance.now();
  }
}

/// The job under the mouse: the slice of the lane at y containing t, or the nearest within 3 pixels.
function ganttHit(e) {
  const g = gantt, r = g.canvas.getBoundingClientRect();
  const x = e.clientX - r.left - g.left, y = e.clientY - r.top;
  if (x < 0 || y > r.height - g.bottom) return -1;
  const span = g.t1 - g.t0, pw = r.width - g.left, t = g.t0 + x / pw * span, tol = 3 / pw * span;
  const la = Math.floor(g.l0 + y / g.lanePx), lb = Math.min(G.lanes.length, Math.max(la + 1, Math.floor(g.l0 + (y + 1) / g.lanePx)));
  let best = -1, bestD = Infinity;
  for (let L = Math.max(0, la); L < lb; ++L) {
    const hi = A.lane_offsets[L + 1];
    for (let i = firstEndingAfter(L, t - tol); i < hi && A.slice_start[i] <= t + tol; ++i) {
      const d = t < A.slice_start[i] ? A.slice_start[i] - t : t > A.slice_end[i] ? t - A.slice_end[i] : 0;
      if (d < bestD) { bestD = d; best = A.slice_job[i]; }
    }
  }
  return best;
}

function ganttHover(e) {
  const tip = $('gantt-tip');
  if (e.target !== gantt.canvas) { tip.style.display = 'none'; return; }
  const j = ganttHit(e);
  if (j < 0) { tip.style.display = 'none'; return; }
  const r = gantt.canvas.getBoundingClientRect();
  const lane = Math.floor(gantt.l0 + (e.clientY - r.top) / gantt.lanePx), type = META.types[A.lane_type[lane]];
  tip.textContent = `job ${jobName(j)} · ${A.gpus[j]} GPUs · JCT ${fmtDur(A.finish[j] - A.submit[j])} · ` +
      `${A.preemptions[j]} preemptions · ${G.lanes[lane] || ''}${type ? ' (' + type + ')' : ''}`;
  tip.style.display = 'block';
  tip.style.left = (e.clientX - r.left + 12) + 'px'; tip.style.top = (e.clientY - r.top + 12) + 'px';
}

/// Zooms the Gantt to a job's life and scrolls its first lane into view.
function ganttShow(j) {
  const g = gantt, a = A.submit[j] - G.t0, b = (isFinite(A.finish[j]) ? A.finish[j] : g.tMax + G.t0) - G.t0;
  const pad = Math.max(60, (b - a) * 0.15);
  g.t0 = a - pad; g.t1 = b + pad;
  for (let L = 0; L < G.lanes.length; ++L) {
    const hi = A.lane_offsets[L + 1];
    let found = false;
    for (let i = firstEndingAfter(L, a); i < hi && A.slice_start[i] <= b; ++i) if (A.slice_job[i] === j) { found = true; break; }
    if (found) {
      const h = g.canvas.getBoundingClientRect().height - g.bottom;
      if (g.lanePx < 8) g.lanePx = Math.min(14, h / 4);
      g.l0 = L - 2;
      break;
    }
  }
  ganttClamp(); ganttRequest();
}

// ---------------------------------------------------------------------------------------------- a job

function selectJob(j) {
  selected = j;
  const box = $('job-detail');
  box.replaceChildren();
  const dur = (a, b) => (isFinite(a) && isFinite(b) ? fmtDur(b - a) : 'n/a');
  box.append(el('h3', { id: 'job-title' }, `job ${jobName(j)}`),
             el('div', { class: 'muted' }, `${META.states[A.state[j]]} · ${A.gpus[j]} GPUs` +
                (A.type[j] !== 255 ? ` · ${META.types[A.type[j]]}` : '')),
             el('button', { onclick: () => ganttShow(j) }, 'show in schedule'));
  const kv = el('table', { class: 'kv' });
  for (const [k, v] of [['submit', fmtTime(A.submit[j]) + ' s'], ['first start', isFinite(A.start[j]) ? fmtTime(A.start[j]) + ' s' : 'never'],
                        ['finish', isFinite(A.finish[j]) ? fmtTime(A.finish[j]) + ' s' : 'not finished'],
                        ['JCT', dur(A.submit[j], A.finish[j])], ['queueing delay', dur(A.submit[j], A.start[j])],
                        ['pending time', fmtDur(A.pending[j])],
                        ['preemptions', `${A.preemptions[j]} (${A.migrations[j]} moves)`], ['resizes', `${A.resizes[j]}`]])
    kv.append(el('tr', {}, el('td', {}, k), el('td', {}, v)));
  box.append(kv);
  // Pending reasons (the record's totals).
  const r0 = A.reason_offsets[j], r1 = A.reason_offsets[j + 1];
  if (r1 > r0) {
    const t = el('table', { class: 'kv', id: 'job-reasons' });
    for (let i = r0; i < r1; ++i)
      t.append(el('tr', {}, el('td', {}, META.reasons[A.reason_name[i]]), el('td', {}, fmtDur(A.reason_seconds[i]))));
    box.append(el('div', {}, 'pending, by reason:'), t);
  }
  // The timeline: the event log's lines for this job, or what the record allows.
  const list = el('ol', { id: 'job-timeline' });
  const line = (cls, t, ...parts) => list.append(el('li', { class: 'ev ev-' + cls }, `${fmtTime(t)} s `, ...parts));
  if (META.event_log) {
    const e0 = A.ev_offsets[j], e1 = A.ev_offsets[j + 1];
    let sawArrive = false;
    for (let i = e0; i < e1; ++i) if (KIND[A.ev_kind[i]] === 'arrive') sawArrive = true;
    if (!sawArrive) line('submit', A.submit[j], 'submitted');
    for (let i = e0; i < e1; ++i) {
      const kind = KIND[A.ev_kind[i]], t = A.ev_time[i], text = META.strings[A.ev_text[i]], ref = A.ev_ref[i];
      const by = (word) => (ref >= 0 ? [` ${word} `, jobLink(ref)] : []);
      switch (kind) {
        case 'arrive': line('submit', t, 'arrived'); break;
        case 'start': line('start', t, `start on ${text}`, ...by('packed with')); break;
        case 'migrate': line('migrate', t, `moved to ${text}`); break;
        case 'resize': line('resize', t, `resized to ${A.ev_number[i]} GPUs: ${text}`); break;
        case 'preempt': line('preempt', t, 'preempted' + (text ? ` (${text}` : ''), ...by('by'), text ? ')' : ''); break;
        case 'finish': line('finish', t, 'finished'); break;
        case 'rate': line('rate', t, `rate ${fmtNum(A.ev_number[i])}` + (text ? ` (${text})` : '')); break;
        case 'reject': line('reject', t, 'rejected' + (text ? `: ${text}` : '')); break;
        case 'wait':
          if (text === 'rest') {
            line('wait', t, 'waiting: the queue\'s common reason');
            restLines(list, t, i + 1 < e1 ? A.ev_time[i + 1] : Infinity);
          } else {
            line('wait', t, `waiting: ${text}`, ...by('behind'));
          }
          break;
        default: line('other', t, text);
      }
    }
  } else {
    line('submit', A.submit[j], 'submitted');
    if (isFinite(A.start[j])) line('start', A.start[j], `first start` + (A.type[j] !== 255 ? ` on ${META.types[A.type[j]]}` : ''));
    if (isFinite(A.finish[j])) line('finish', A.finish[j], 'finished');
    box.append(el('p', { class: 'muted' }, 'Without an event log only the first start and the finish are known; ' +
                  'give the run\'s --event-log for each start, preemption and its cause.'));
  }
  box.append(el('div', {}, 'timeline:'), list);
  tableMarkSelected();
  ganttRequest();
}

/// The queue's common reason (wait_rest lines) while a job followed it, from t to its next own line.
function restLines(list, t, until) {
  const T = A.rest_time;
  let lo = 0, hi = T.length;
  while (lo < hi) { const m = (lo + hi) >>> 1; if (T[m] <= t) lo = m + 1; else hi = m; }
  let i = Math.max(0, lo - 1), shown = 0;
  if (lo === 0 || T[i] > t) i = lo;
  for (; i < T.length && T[i] < until; ++i) {
    if (shown++ === 20) { list.append(el('li', { class: 'ev ev-wait' }, '…')); break; }
    const ref = A.rest_ref[i];
    list.append(el('li', { class: 'ev ev-wait' }, `${fmtTime(Math.max(t, T[i]))} s   queue: ${META.strings[A.rest_text[i]]}`,
                   ...(ref >= 0 ? [' behind ', jobLink(ref)] : [])));
  }
}

// ---------------------------------------------------------------------------------------------- charts

function seriesCharts() {
  const ts = META.timeseries || {}, xs = (ts.time || []).map((t) => t / 3600);
  lineChart($('ts-queue'), 'Jobs queued and running', 'time (h)', 'jobs',
            [{ name: 'queued', xs, ys: ts.queued_jobs || [] }, { name: 'running', xs, ys: ts.running_jobs || [] }],
            { step: true, empty: 'no time series (--timeseries-points 0)' });
  lineChart($('ts-busy'), 'Busy GPUs by type', 'time (h)', 'GPUs',
            Object.entries(ts.busy_gpus || {}).map(([t, ys]) => ({ name: t, xs, ys,
              colour: seriesColour(Math.max(0, META.types.indexOf(t))) })), { step: true });
  const by = ts.queued_by_reason;
  lineChart($('ts-reasons'), 'Queued jobs by pending reason', 'time (h)', 'jobs',
            by ? Object.entries(by).map(([r, ys]) => ({ name: r, xs, ys })) : [],
            { step: true, empty: by ? 'no job waited' : 'this result has no timeseries.queued_by_reason' });
}

function cdfChart(canvas, title, values) {
  const v = values.filter((x) => isFinite(x)).sort((a, b) => a - b);
  const n = v.length, pts = Math.min(n, 600), xs = [], ys = [];
  for (let i = 0; i < pts; ++i) {
    const q = pts === 1 ? 1 : i / (pts - 1), idx = Math.min(n - 1, Math.round(q * (n - 1)));
    xs.push(v[idx] / 3600); ys.push((idx + 1) / n);
  }
  lineChart(canvas, `${title} (${fmtNum(n)} jobs)`, 'hours', 'share of jobs', [{ xs, ys }], { yMax: 1, empty: 'no finished job' });
}

function cdfCharts() {
  const fin = [];
  for (let j = 0; j < N; ++j) if (isFinite(A.finish[j])) fin.push(j);
  const f64 = (fn) => { const a = new Float64Array(fin.length); fin.forEach((j, i) => { a[i] = fn(j); }); return a; };
  cdfChart($('cdf-jct'), 'JCT', f64((j) => A.finish[j] - A.submit[j]));
  cdfChart($('cdf-queue'), 'Queueing delay', f64((j) => A.start[j] - A.submit[j]));
  cdfChart($('cdf-pending'), 'Pending time', f64((j) => A.pending[j]));
}

// ---------------------------------------------------------------------------------------------- job table

const COLUMNS = [
  { name: 'job', key: (j) => idKey[j], text: (j) => jobName(j), w: '1.4fr' },
  { name: 'state', key: (j) => A.state[j], text: (j) => META.states[A.state[j]], w: '0.8fr' },
  { name: 'GPUs', key: (j) => A.gpus[j], num: true, w: '0.5fr' },
  { name: 'type', key: (j) => A.type[j], text: (j) => (A.type[j] === 255 ? '' : META.types[A.type[j]]), w: '0.6fr' },
  { name: 'submit (s)', key: (j) => A.submit[j], time: true },
  { name: 'start (s)', key: (j) => A.start[j], time: true },
  { name: 'finish (s)', key: (j) => A.finish[j], time: true },
  { name: 'JCT (s)', key: (j) => A.finish[j] - A.submit[j], time: true },
  { name: 'queueing (s)', key: (j) => A.start[j] - A.submit[j], time: true },
  { name: 'pending (s)', key: (j) => A.pending[j], time: true },
  { name: 'preempt.', key: (j) => A.preemptions[j], num: true, w: '0.6fr' },
  { name: 'moves', key: (j) => A.migrations[j], num: true, w: '0.5fr' },
];
let idKey = null;   // per job: its id as a number when every id is one, else its rank in id order
const table = { view: null, sortCol: -1, desc: false, rowH: 20 };

function tableInit() {
  const names = ids();
  idKey = new Float64Array(N);
  let numeric = true;
  for (let j = 0; j < N && numeric; ++j) { const v = Number(names[j]); if (names[j] === '' || !isFinite(v)) numeric = false; else idKey[j] = v; }
  if (!numeric) {
    const order = Array.from({ length: N }, (_, j) => j).sort((a, b) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0));
    order.forEach((j, r) => { idKey[j] = r; });
  }
  const t = $('table');
  t.style.setProperty('--cols', COLUMNS.map((c) => c.w || '1fr').join(' '));
  const head = $('table-head');
  COLUMNS.forEach((c, i) => head.append(el('span', { class: c.num || c.time ? 'num' : '', onclick: () => tableSort(i) }, c.name)));
  for (const s of META.states) $('state-filter').append(el('option', { value: s }, s));
  $('search').addEventListener('input', tableFilter);
  $('state-filter').addEventListener('change', tableFilter);
  $('table-body').addEventListener('scroll', () => requestAnimationFrame(tableRender));
  tableFilter();
}

function tableFilter() {
  const q = $('search').value.trim(), st = META.states.indexOf($('state-filter').value), names = ids();
  const out = new Uint32Array(N);
  let n = 0;
  for (let j = 0; j < N; ++j) {
    if (st >= 0 && A.state[j] !== st) continue;
    if (q && !names[j].includes(q)) continue;
    out[n++] = j;
  }
  table.view = out.slice(0, n);
  if (table.sortCol >= 0) tableApplySort();
  $('table-count').textContent = `${fmtNum(n)} of ${fmtNum(N)} jobs`;
  $('table-body').scrollTop = 0;
  tableRender();
}

function tableSort(i) {
  table.desc = table.sortCol === i ? !table.desc : false;
  table.sortCol = i;
  tableApplySort();
  [...$('table-head').children].forEach((s, k) => {
    s.textContent = COLUMNS[k].name + (k === i ? (table.desc ? ' ▼' : ' ▲') : '');
  });
  tableRender();
}

/// Sorts the view by the column's values (null last either way), ties in record order.
function tableApplySort() {
  const c = COLUMNS[table.sortCol], v = table.view, key = new Float64Array(N), sign = table.desc ? -1 : 1;
  for (let i = 0; i < v.length; ++i) { const x = c.key(v[i]); key[v[i]] = isFinite(x) ? x * sign : Infinity; }
  v.sort((a, b) => key[a] - key[b] || a - b);
}

function tableRender() {
  const body = $('table-body'), rows = $('table-rows'), v = table.view, h = table.rowH;
  $('table-spacer').style.height = (v.length * h) + 'px';
  const first = Math.floor(body.scrollTop / h), count = Math.ceil(body.clientHeight / h) + 2;
  rows.style.top = (first * h) + 'px';
  rows.replaceChildren();
  for (let r = first; r < Math.min(v.length, first + count); ++r) {
    const j = v[r];
    const row = el('div', { class: 'vrow' + (j === selected ? ' selected' : ''), 'data-job': String(j) });
    for (const c of COLUMNS) {
      const text = c.text ? c.text(j) : c.time ? fmtTime(c.key(j)) : String(c.key(j));
      row.append(el('span', { class: c.num || c.time ? 'num' : '' }, text));
    }
    row.addEventListener('click', () => selectJob(j));
    rows.append(row);
  }
}

function tableMarkSelected() {
  for (const row of $('table-rows').children) row.classList.toggle('selected', Number(row.dataset.job) === selected);
}

// ---------------------------------------------------------------------------------------------- start

async function main() {
  await decodeArrays();
  ganttInit();
  ganttDraw();  // sets window.dlsimReady: the schedule is on screen and answers the mouse
  setTimeout(() => {
    summaryTables();
    seriesCharts();
    tableInit();
    cdfCharts();
    window.dlsimComplete = true;
  }, 0);
}
main().catch((e) => {
  document.body.prepend(el('pre', { class: 'bad' }, 'report error: ' + (e && e.stack || e)));
  window.dlsimError = String(e);
});
