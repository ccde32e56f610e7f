// The report's charts: inline SVG with labelled axes, no library. They draw numbers the
// C++ side computed (bins, intervals, verdicts); text goes in with textContent only.
const RagmeterCharts = (function () {
  'use strict';
  const NS = 'http://www.w3.org/2000/svg';
  const COLORS = { bar: '#0969da', good: '#1a7f37', bad: '#cf222e', muted: '#8c959f',
                   retrieval: '#8250df', generation: '#bc4c00', axis: '#57606a', grid: '#eaeef2' };

  function svgEl(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = String(text);
    return node;
  }
  function title(node, text) { node.appendChild(svgEl('title', null, text)); return node; }
  function round(x) { return Math.round(x * 100) / 100; }
  function label(x) {
    if (Math.abs(x) >= 1000) return String(Math.round(x));
    return String(Number(x.toFixed(2)));
  }

  // About `count` round tick values from lo to hi.
  function ticks(lo, hi, count) {
    if (!(hi > lo)) return [lo];
    const raw = (hi - lo) / Math.max(1, count);
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) || raw;
    const out = [];
    for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) out.push(round(v / step) * step);
    return out;
  }

  // Whole-number ticks from 0 to at least `top`: [ticks, the axis's end].
  function countAxis(top) {
    const t = ticks(0, Math.max(1, top), 3).filter((v) => Number.isInteger(v));
    const step = t.length > 1 ? t[1] - t[0] : 1;
    while (t[t.length - 1] < top) t.push(t[t.length - 1] + step);
    return [t, t[t.length - 1]];
  }

  // An empty chart: axes with ticks and labels. Returns the svg and the scales.
  function frame(o) {
    const width = o.width || 300, height = o.height || 190;
    const m = Object.assign({ top: o.title ? 22 : 8, right: 12, bottom: 40, left: 48 }, o.margin || {});
    const svg = svgEl('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'chart',
                               'data-chart': o.kind || 'chart', role: 'img' });
    if (o.title) svg.appendChild(svgEl('text', { x: m.left, y: 14, class: 'chart-title' }, o.title));
    const [x0, x1] = o.x, [y0, y1] = o.y;
    const sx = (v) => m.left + (v - x0) / ((x1 - x0) || 1) * (width - m.left - m.right);
    const sy = (v) => height - m.bottom - (v - y0) / ((y1 - y0) || 1) * (height - m.top - m.bottom);
    const axis = svgEl('g', { class: 'axis' });
    for (const v of o.yTicks || ticks(y0, y1, 4)) {
      axis.appendChild(svgEl('line', { x1: m.left, x2: width - m.right, y1: sy(v), y2: sy(v), stroke: COLORS.grid }));
      axis.appendChild(svgEl('text', { x: m.left - 4, y: sy(v) + 3, 'text-anchor': 'end' }, label(v)));
    }
    for (const v of o.xTicks || ticks(x0, x1, 5)) {
      axis.appendChild(svgEl('line', { x1: sx(v), x2: sx(v), y1: height - m.bottom, y2: height - m.bottom + 4, stroke: COLORS.axis }));
      axis.appendChild(svgEl('text', { x: sx(v), y: height - m.bottom + 15, 'text-anchor': 'middle' },
        o.xTickFormat ? o.xTickFormat(v) : label(v)));
    }
    axis.appendChild(svgEl('line', { x1: m.left, x2: width - m.right, y1: height - m.bottom, y2: height - m.bottom, stroke: COLORS.axis }));
    axis.appendChild(svgEl('line', { x1: m.left, x2: m.left, y1: m.top, y2: height - m.bottom, stroke: COLORS.axis }));
    axis.appendChild(svgEl('text', { x: (m.left + width - m.right) / 2, y: height - 6, 'text-anchor': 'middle', class: 'axis-label' }, o.xLabel));
    axis.appendChild(svgEl('text', { x: 12, y: (m.top + height - m.bottom) / 2, 'text-anchor': 'middle', class: 'axis-label',
                                     transform: `rotate(-90 12 ${(m.top + height - m.bottom) / 2})` }, o.yLabel));
    svg.appendChild(axis);
    const plot = svgEl('g');
    svg.appendChild(plot);
    return { svg, plot, sx, sy };
  }

  // A metric's scores in bins: {low, high, counts}.
  function histogram(h, o) {
    const [yTicks, top] = countAxis(Math.max(...h.counts));
    const f = frame({ kind: 'histogram', title: o.title, width: 290, x: [h.low, h.high], y: [0, top], xLabel: o.xLabel,
                      yLabel: 'samples', yTicks });
    const w = (h.high - h.low) / h.counts.length;
    h.counts.forEach((count, i) => {
      const a = h.low + w * i, b = a + w;
      f.plot.appendChild(title(svgEl('rect', { x: f.sx(a) + 0.5, width: Math.max(0, f.sx(b) - f.sx(a) - 1), y: f.sy(count),
        height: f.sy(0) - f.sy(count), fill: COLORS.bar }), `${label(a)}–${label(b)}: ${count}`));
    });
    return f.svg;
  }

  // Paired differences in the metric's good direction: {width, worse[], ties, better[]},
  // bin 0 of each side next to no change. Ties get their own bar at 0.
  function differences(d, o) {
    const n = d.better.length, step = d.width / n;
    const bars = [];
    d.worse.forEach((count, k) => bars.push({ a: -(k + 1) * step, b: -k * step, count, color: COLORS.bad }));
    d.better.forEach((count, k) => bars.push({ a: k * step, b: (k + 1) * step, count, color: COLORS.good }));
    const [yTicks, top] = countAxis(Math.max(d.ties, ...bars.map((b) => b.count)));
    const f = frame({ kind: 'differences', title: o.title, width: 290, x: [-d.width, d.width], y: [0, top], xLabel: o.xLabel,
                      yLabel: 'samples', yTicks });
    for (const bar of bars) {
      f.plot.appendChild(title(svgEl('rect', { x: f.sx(bar.a) + 0.5, width: Math.max(0, f.sx(bar.b) - f.sx(bar.a) - 1),
        y: f.sy(bar.count), height: f.sy(0) - f.sy(bar.count), fill: bar.color }),
        `${bar.a < 0 ? 'worse' : 'better'} by ${label(Math.abs(bar.a))}–${label(Math.abs(bar.b))}: ${bar.count}`));
    }
    const half = (f.sx(step) - f.sx(0)) / 3;
    f.plot.appendChild(title(svgEl('rect', { x: f.sx(0) - half, width: 2 * half, y: f.sy(d.ties), height: f.sy(0) - f.sy(d.ties),
      fill: COLORS.muted }), `no change: ${d.ties}`));
    return f.svg;
  }

  // Points with 95% intervals on one axis: rows [{label, value, ci, ceiling}], the
  // agreement plot. A hollow diamond marks the people's ceiling.
  function intervals(rows, o) {
    const rowHeight = 22, height = 50 + rowHeight * rows.length;
    const m = { left: 170, top: o.title ? 22 : 8 };
    const f = frame({ kind: 'agreement', title: o.title, width: o.width || 420, height, margin: m, x: o.x, y: [0, rows.length],
                      xLabel: o.xLabel, yLabel: '', yTicks: [] });
    rows.forEach((r, i) => {
      const y = f.sy(rows.length - i - 0.5);
      f.plot.appendChild(svgEl('text', { x: m.left - 6, y: y + 4, 'text-anchor': 'end' }, r.label));
      if (r.ci) f.plot.appendChild(svgEl('line', { x1: f.sx(r.ci[0]), x2: f.sx(r.ci[1]), y1: y, y2: y, stroke: COLORS.bar, 'stroke-width': 2 }));
      if (r.value !== null && r.value !== undefined) {
        f.plot.appendChild(title(svgEl('circle', { cx: f.sx(r.value), cy: y, r: 4, fill: COLORS.bar }),
          `${r.label}: ${label(r.value)}${r.ci ? ` [${label(r.ci[0])}, ${label(r.ci[1])}]` : ''}`));
      }
      if (r.ceiling !== null && r.ceiling !== undefined) {
        const cx = f.sx(r.ceiling);
        f.plot.appendChild(title(svgEl('path', { d: `M${cx} ${y - 5}L${cx + 5} ${y}L${cx} ${y + 5}L${cx - 5} ${y}Z`,
          fill: 'none', stroke: COLORS.good, 'stroke-width': 1.5 }), `people's ceiling: ${label(r.ceiling)}`));
      }
    });
    return f.svg;
  }

  // Calibration: per score bin, the mean label against the mean score, with its interval.
  function calibration(bins, o) {
    const f = frame({ kind: 'calibration', title: o.title, width: 290, x: [o.low, o.high], y: o.y, xLabel: o.xLabel, yLabel: o.yLabel });
    if (o.diagonal) {
      f.plot.appendChild(svgEl('line', { x1: f.sx(o.low), y1: f.sy(o.y[0]), x2: f.sx(o.high), y2: f.sy(o.y[1]),
        stroke: COLORS.muted, 'stroke-dasharray': '4 3' }));
    }
    for (const b of bins) {
      if (!b.n || b.mean_score === null) continue;
      const x = f.sx(b.mean_score);
      if (b.label_ci95) {
        f.plot.appendChild(svgEl('line', { x1: x, x2: x, y1: f.sy(b.label_ci95[0]), y2: f.sy(b.label_ci95[1]), stroke: COLORS.bar }));
      }
      f.plot.appendChild(title(svgEl('circle', { cx: x, cy: f.sy(b.mean_label), r: 2 + Math.min(5, Math.sqrt(b.n) / 2), fill: COLORS.bar,
        'fill-opacity': 0.8 }), `scores ${label(b.low)}–${label(b.high)}: ${b.n} labels, mean label ${label(b.mean_label)}`));
    }
    return f.svg;
  }

  // The weaker-part chart: each metric's mean on its range (1 = best), by part.
  function parts(w, o) {
    const rows = [];
    for (const part of ['retrieval', 'generation']) {
      for (const m of w[part]) rows.push({ part, metric: m.metric, value: m.normalized_mean });
    }
    const rowHeight = 18, height = 62 + rowHeight * Math.max(1, rows.length);
    const m = { left: 170, top: 22 };
    const f = frame({ kind: 'parts', width: o.width || 440, height, margin: m, x: [0, 1], y: [0, Math.max(1, rows.length)],
                      xLabel: 'mean score on the metric\u2019s range (1 = best)', yLabel: '', yTicks: [] });
    rows.forEach((r, i) => {
      const y = f.sy(rows.length - i - 0.5);
      f.plot.appendChild(svgEl('text', { x: m.left - 6, y: y + 4, 'text-anchor': 'end' }, r.metric));
      f.plot.appendChild(title(svgEl('rect', { x: f.sx(0), y: y - 6, height: 12, width: Math.max(1, f.sx(r.value) - f.sx(0)),
        fill: COLORS[r.part] }), `${r.metric}: ${label(r.value)}`));
    });
    let x = m.left;
    for (const part of ['retrieval', 'generation']) {
      f.svg.appendChild(svgEl('rect', { x, y: 6, width: 10, height: 10, fill: COLORS[part] }));
      f.svg.appendChild(svgEl('text', { x: x + 14, y: 15, class: 'legend' }, part));
      x += 90;
    }
    return f.svg;
  }

  return { histogram, differences, intervals, calibration, parts };
})();
