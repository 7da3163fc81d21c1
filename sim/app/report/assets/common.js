// dlsim report: helpers shared by the run page and the sweep page (plain JavaScript, no libraries).
'use strict';

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/// A number as the report shows it: up to 4 significant digits, thousands grouped.
function fmtNum(x) {
  if (x === null || x === undefined || (typeof x === 'number' && !isFinite(x))) return 'n/a';
  if (typeof x !== 'number') return String(x);
  if (Number.isInteger(x)) return x.toLocaleString('en-US');
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  if (a >= 1) return x.toPrecision(4).replace(/\.?0+$/, '');
  if (a === 0) return '0';
  return x.toPrecision(3);
}

/// Seconds as the report shows a duration: s, min, h or d.
function fmtDur(s) {
  if (s === null || s === undefined || !isFinite(s)) return 'n/a';
  const a = Math.abs(s);
  if (a < 120) return fmtNum(s) + ' s';
  if (a < 7200) return fmtNum(s / 60) + ' min';
  if (a < 3 * 86400) return fmtNum(s / 3600) + ' h';
  return fmtNum(s / 86400) + ' d';
}

/// A time in seconds with millisecond precision (the table's and the timeline's clock).
function fmtTime(s) {
  if (s === null || s === undefined || !isFinite(s)) return '';
  return (Math.round(s * 1000) / 1000).toFixed(3);
}

const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f',
                 '#bab0ac', '#86bcb6', '#d37295', '#a0cbe8', '#ffbe7d', '#8cd17d', '#b6992d'];
function seriesColour(i) { return PALETTE[i % PALETTE.length]; }

/// "Nice" axis ticks over [lo, hi].
function ticks(lo, hi, n) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / Math.max(1, n), mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || 10 * mag;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

/// A canvas sized to its CSS box at the device's pixel ratio; returns its 2-D context in CSS pixels.
function fitCanvas(canvas) {
  const r = canvas.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(r.width * dpr)), h = Math.max(1, Math.round(r.height * dpr));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { ctx, w: r.width, h: r.height, dpr };
}

/// A line chart: series [{name, xs, ys, colour}], x and y labels; step: draw as steps (time buckets).
function lineChart(canvas, title, xLabel, yLabel, series, opts) {
  opts = opts || {};
  const { ctx, w, h } = fitCanvas(canvas);
  ctx.clearRect(0, 0, w, h);
  const m = { l: 56, r: 10, t: 22, b: 34 };
  const pw = w - m.l - m.r, ph = h - m.t - m.b;
  let x0 = Infinity, x1 = -Infinity, y1 = 0, y0 = 0;
  for (const s of series)
    for (let i = 0; i < s.xs.length; ++i) {
      const x = s.xs[i], y = s.ys[i];
      if (!isFinite(x) || !isFinite(y)) continue;
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y1 = Math.max(y1, y); y0 = Math.min(y0, y);
    }
  if (opts.yMax !== undefined) y1 = opts.yMax;
  ctx.fillStyle = '#222'; ctx.font = '600 12px system-ui, sans-serif'; ctx.textAlign = 'left';
  ctx.fillText(title, m.l, 14);
  if (!isFinite(x0)) {
    ctx.font = '12px system-ui, sans-serif'; ctx.fillStyle = '#777';
    ctx.fillText(opts.empty || 'no data', m.l + 10, m.t + ph / 2);
    return;
  }
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) y1 = y0 + 1;
  const X = (x) => m.l + (x - x0) / (x1 - x0) * pw, Y = (y) => m.t + ph - (y - y0) / (y1 - y0) * ph;
  ctx.font = '11px system-ui, sans-serif'; ctx.strokeStyle = '#e4e4e4'; ctx.fillStyle = '#555'; ctx.lineWidth = 1;
  ctx.textAlign = 'right';
  for (const v of ticks(y0, y1, 5)) {
    ctx.beginPath(); ctx.moveTo(m.l, Y(v) + .5); ctx.lineTo(m.l + pw, Y(v) + .5); ctx.stroke();
    ctx.fillText(fmtNum(v), m.l - 4, Y(v) + 4);
  }
  ctx.textAlign = 'center';
  for (const v of ticks(x0, x1, 6)) ctx.fillText(fmtNum(v), X(v), m.t + ph + 14);
  ctx.fillText(xLabel, m.l + pw / 2, h - 4);
  ctx.save(); ctx.translate(12, m.t + ph / 2); ctx.rotate(-Math.PI / 2); ctx.fillText(yLabel, 0, 0); ctx.restore();
  ctx.strokeStyle = '#999'; ctx.strokeRect(m.l + .5, m.t + .5, pw, ph);
  ctx.save(); ctx.beginPath(); ctx.rect(m.l, m.t, pw, ph); ctx.clip();
  series.forEach((s, k) => {
    ctx.strokeStyle = s.colour || seriesColour(k); ctx.lineWidth = 1.5; ctx.beginPath();
    let open = false;
    for (let i = 0; i < s.xs.length; ++i) {
      if (!isFinite(s.ys[i]) || !isFinite(s.xs[i])) { open = false; continue; }
      const px = X(s.xs[i]), py = Y(s.ys[i]);
      if (!open) { ctx.moveTo(px, py); open = true; }
      else if (opts.step) ctx.lineTo(px, Y(s.ys[i - 1]));
      ctx.lineTo(px, py);
    }
    ctx.stroke();
  });
  ctx.restore();
  // Legend, top right.
  ctx.font = '11px system-ui, sans-serif'; ctx.textAlign = 'left';
  let ly = m.t + 12;
  series.forEach((s, k) => {
    if (!s.name) return;
    const tw = ctx.measureText(s.name).width;
    ctx.fillStyle = 'rgba(255,255,255,.8)'; ctx.fillRect(m.l + pw - tw - 24, ly - 10, tw + 22, 14);
    ctx.fillStyle = s.colour || seriesColour(k); ctx.fillRect(m.l + pw - tw - 20, ly - 6, 10, 4);
    ctx.fillStyle = '#333'; ctx.fillText(s.name, m.l + pw - tw - 6, ly);
    ly += 14;
  });
}

/// Compares two values for a sort: numbers numerically (null and NaN last), else text.
function compareValues(a, b) {
  const na = typeof a === 'number' && isFinite(a), nb = typeof b === 'number' && isFinite(b);
  if (na && nb) return a - b;
  if (na !== nb) return na ? -1 : 1;
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : 1;
  if (b === null || b === undefined) return -1;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

const META = JSON.parse($('dlsim-meta').textContent);
