// dlsim report: the page of a sweep. Its data are the sweep's index.json (parameters, metrics and, per run,
// its status, parameter values and summary) and, per run, the link to its own report when one exists.
'use strict';

const RUNS = META.runs.map((r, i) => ({ ...r, link: META.links[i] || '' }));
const PARAMS = META.parameters;
const METRICS = META.metrics;
const FIGURES = ['avg_jct', 'p99_jct', 'avg_queueing_delay', 'makespan', 'gpu_utilization', 'preemptions'];
const state = { col: -1, desc: false, filter: '' };

/// The table's columns: the run, its status, each swept parameter, each index metric.
const COLS = [
  { name: 'run_id', value: (r) => r.run_id, link: true },
  { name: 'status', value: (r) => r.status },
  ...PARAMS.map((p) => ({ name: p, value: (r) => paramText(r.parameters ? r.parameters[p] : null) })),
  ...METRICS.map((m) => ({ name: m, value: (r) => (r.summary && r.summary[m] !== undefined ? r.summary[m] : null), num: true })),
  { name: 'error', value: (r) => r.error || '' },
];

function paramText(v) {
  if (v === null || v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : v;
}

function render() {
  const t = $('run-table');
  t.replaceChildren();
  const head = el('tr', {});
  COLS.forEach((c, i) => head.append(el('th', { onclick: () => sortBy(i) },
                                        c.name + (state.col === i ? (state.desc ? ' ▼' : ' ▲') : ''))));
  t.append(head);
  const q = state.filter.toLowerCase();
  let rows = RUNS.filter((r) => !q || COLS.some((c) => String(c.value(r) ?? '').toLowerCase().includes(q)));
  if (state.col >= 0) {
    const c = COLS[state.col];
    rows = rows.map((r, i) => [r, i]).sort((a, b) => {
      const va = c.value(a[0]), vb = c.value(b[0]);
      const nullA = va === null || va === '', nullB = vb === null || vb === '';
      if (nullA !== nullB) return nullA ? 1 : -1;  // empty cells last either way
      return (state.desc ? -1 : 1) * compareValues(va, vb) || a[1] - b[1];
    }).map((x) => x[0]);
  }
  for (const r of rows) {
    const tr = el('tr', { class: 'run', 'data-run': r.run_id });
    for (const c of COLS) {
      const v = c.value(r);
      let cell;
      if (c.link && r.link) cell = el('a', { href: r.link }, String(v));
      else cell = c.num ? fmtNum(v) : String(v ?? '');
      tr.append(el('td', { class: c.num ? 'num' : (c.name === 'status' && v !== 'done' ? 'bad' : '') }, cell));
    }
    t.append(tr);
  }
  $('run-count').textContent = `${rows.length} of ${RUNS.length} runs`;
}

function sortBy(i) {
  state.desc = state.col === i ? !state.desc : false;
  state.col = i;
  render();
}

/// Per figure, the mean over the finished runs of each value of the chosen parameter, as a bar chart.
function figures() {
  const box = $('figures');
  box.replaceChildren();
  const p = $('group-by').value;
  const groups = new Map();
  for (const r of RUNS) {
    if (r.status !== 'done') continue;
    const key = p ? String(paramText(r.parameters ? r.parameters[p] : '')) : 'all runs';
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  for (const m of FIGURES) {
    if (!METRICS.includes(m)) continue;
    const canvas = el('canvas', { class: 'chart', id: 'fig-' + m });
    box.append(canvas);
    const bars = [...groups.entries()].map(([k, rs]) => {
      const v = rs.map((r) => r.summary[m]).filter((x) => typeof x === 'number' && isFinite(x));
      return [k, v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN, v.length];
    });
    barChart(canvas, `${m} (mean over runs)` + (p ? ` by ${p}` : ''), bars, m.endsWith('jct') || m.includes('delay') || m === 'makespan');
  }
}

function barChart(canvas, title, bars, hours) {
  const { ctx, w, h } = fitCanvas(canvas);
  ctx.clearRect(0, 0, w, h);
  const m = { l: 56, r: 10, t: 22, b: 48 }, pw = w - m.l - m.r, ph = h - m.t - m.b;
  ctx.fillStyle = '#222'; ctx.font = '600 12px system-ui, sans-serif'; ctx.fillText(title, m.l, 14);
  const vals = bars.map((b) => (hours ? b[1] / 3600 : b[1]));
  const top = Math.max(0, ...vals.filter(isFinite)) || 1;
  ctx.font = '11px system-ui, sans-serif'; ctx.textAlign = 'right'; ctx.strokeStyle = '#e4e4e4';
  for (const v of ticks(0, top, 5)) {
    const y = m.t + ph - v / top * ph;
    ctx.beginPath(); ctx.moveTo(m.l, y + .5); ctx.lineTo(m.l + pw, y + .5); ctx.stroke();
    ctx.fillStyle = '#555'; ctx.fillText(fmtNum(v), m.l - 4, y + 4);
  }
  ctx.save(); ctx.translate(12, m.t + ph / 2); ctx.rotate(-Math.PI / 2); ctx.textAlign = 'center';
  ctx.fillText(hours ? 'hours' : '', 0, 0); ctx.restore();
  const bw = pw / Math.max(1, bars.length);
  bars.forEach(([k, , n], i) => {
    const v = vals[i], x = m.l + i * bw + bw * 0.15;
    if (isFinite(v)) {
      ctx.fillStyle = seriesColour(i); ctx.fillRect(x, m.t + ph - v / top * ph, bw * 0.7, v / top * ph);
    }
    ctx.fillStyle = '#333'; ctx.textAlign = 'center';
    ctx.fillText(String(k).slice(0, 18), x + bw * 0.35, m.t + ph + 14);
    ctx.fillStyle = '#777'; ctx.fillText(`${n} run${n === 1 ? '' : 's'}`, x + bw * 0.35, m.t + ph + 28);
  });
}

function main() {
  const done = RUNS.filter((r) => r.status === 'done').length;
  $('title').textContent = `dlsim sweep: ${META.sweep}`;
  $('subtitle').textContent = `${META.dir} · ${RUNS.length} runs, ${done} done · parameters: ${PARAMS.join(', ') || 'none'}`;
  const sel = $('group-by');
  for (const p of PARAMS) sel.append(el('option', { value: p }, p));
  sel.append(el('option', { value: '' }, '(all runs)'));
  if (PARAMS.includes('policy')) sel.value = 'policy';
  sel.addEventListener('change', figures);
  $('filter').addEventListener('input', (e) => { state.filter = e.target.value; render(); });
  render();
  figures();
  window.dlsimReady = true;
}
main();
