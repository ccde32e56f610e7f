// The report page's script. Every string from the data is inserted with textContent
// (via el() and text nodes), never as HTML; links are made only of http and https URLs.
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('ragmeter-data').textContent);
  const app = document.getElementById('app');
  const nav = document.getElementById('nav');
  const PAGE_SIZE = 50;

  // ---- DOM helpers: the only way this script creates content ----
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    if (props) {
      for (const [key, value] of Object.entries(props)) {
        if (key === 'class') node.className = value;
        else if (key === 'on') for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
        else if (key === 'style') node.setAttribute('style', value);
        else node.setAttribute(key, String(value));
      }
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function isWebUrl(text) {
    if (typeof text !== 'string' || !/^https?:\/\//i.test(text)) return false;
    try { const u = new URL(text); return u.protocol === 'http:' || u.protocol === 'https:'; }
    catch (e) { return false; }
  }
  function valueNode(value) {
    if (isWebUrl(value)) return el('a', { href: value, rel: 'noopener noreferrer', target: '_blank' }, value);
    if (typeof value === 'string') return el('span', null, value);
    return el('span', null, JSON.stringify(value));
  }
  function fmt(x, digits) {
    if (x === null || x === undefined || Number.isNaN(x)) return '-';
    return Number(x).toFixed(digits === undefined ? 4 : digits);
  }
  function pvalue(p) { return p === null || p === undefined ? '-' : p < 0.0001 ? Number(p).toExponential(1) : fmt(p); }
  function signed(x) { return x === null || x === undefined ? '-' : (x >= 0 ? '+' : '') + fmt(x); }
  function dirLabel(higher) { return higher ? '↑ higher is better' : '↓ lower is better'; }
  function str(value) {
    if (value === null || value === undefined) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  }
  function field(row, names) {
    for (const n of names) if (row && row[n] !== undefined && row[n] !== null) return row[n];
    return null;
  }
  function link(text, hash) {
    return el('a', { href: hash, on: { click: (e) => { e.preventDefault(); location.hash = hash; } } }, text);
  }

  // ---- shared pieces ----
  function identityBlock(identity) {
    const labels = [['ragmeter_version', 'ragmeter'], ['dataset', 'dataset'], ['dataset_sha256', 'dataset sha256'],
      ['judge', 'judge'], ['model', 'model'], ['plan', 'plan'], ['date', 'date'], ['results', 'results'], ['rows', 'rows'],
      ['rejected', 'rejected rows']];
    const dl = el('dl', { class: 'identity', id: 'identity' });
    for (const [key, label] of labels) {
      if (identity[key] === undefined || identity[key] === null || identity[key] === '') continue;
      dl.appendChild(el('dt', null, label));
      dl.appendChild(el('dd', { 'data-key': key, class: key === 'rejected' && identity[key] > 0 ? 'failed' : '' },
        valueNode(identity[key])));
    }
    return dl;
  }
  // A sparkline of a metric's bins ({low, high, counts}, computed in C++).
  function sparkline(h) {
    const top = Math.max(1, ...h.counts);
    const width = (h.high - h.low) / h.counts.length;
    const box = el('span', { class: 'hist', title: 'scores from ' + h.low + ' to ' + h.high + ' in ' + h.counts.length + ' bins' });
    h.counts.forEach((count, i) => box.appendChild(el('span', {
      style: 'height:' + Math.round(28 * count / top) + 'px',
      title: (h.low + width * i).toFixed(2) + '–' + (h.low + width * (i + 1)).toFixed(2) + ': ' + count,
    })));
    return box;
  }

  // ================= a run =================
  const metrics = data.metrics || [];
  const table = data.table || { ids: [], questions: [], scores: {}, status: {}, reasons: {} };
  const rowCount = table.ids.length;
  // The rows' own JSON, one per line in the second data block, parsed when a sample is opened.
  let rowsText = null;
  const rowStarts = [0];
  function rowAt(i) {
    if (i < 0 || i >= rowCount) return null;
    if (rowsText === null) rowsText = document.getElementById('ragmeter-rows').textContent;
    while (rowStarts.length <= i + 1) {
      const end = rowsText.indexOf('\n', rowStarts[rowStarts.length - 1]);
      rowStarts.push(end < 0 ? rowsText.length : end + 1);
    }
    return JSON.parse(rowsText.slice(rowStarts[i], rowStarts[i + 1]));
  }
  const scoreCache = new Map();  // metric -> {scores: Float64Array, status: Int8Array}
  const STATUS = ['ok', 'skipped', 'failed'];
  function metricColumn(name) {
    if (scoreCache.has(name)) return scoreCache.get(name);
    const scores = new Float64Array(rowCount);
    const status = new Int8Array(rowCount);
    const given = table.scores[name] || [];
    const codes = table.status[name] || '';
    for (let i = 0; i < rowCount; i++) {
      const c = codes.charCodeAt(i);
      status[i] = c === 111 ? 0 : c === 115 ? 1 : 2;  // 'o', 's', else failed
      scores[i] = status[i] === 0 && typeof given[i] === 'number' ? given[i] : NaN;
    }
    const column = { scores, status };
    scoreCache.set(name, column);
    return column;
  }
  const state = { metric: metrics.length ? metrics[0].name : '', status: 'any', min: '', max: '',
                  search: '', sort: 'index', descending: false, page: 0 };

  function metricsTable() {
    const table = el('table', { id: 'metrics' });
    table.appendChild(el('tr', null, el('th', null, 'metric'), el('th', null, 'direction'),
      el('th', { class: 'num' }, 'mean'), el('th', { class: 'num' }, '95% CI'), el('th', { class: 'num' }, 'ok'),
      el('th', { class: 'num' }, 'skipped'), el('th', { class: 'num' }, 'failed'), el('th', null, 'histogram'),
      el('th', null, 'note')));
    for (const m of metrics) {
      const notes = [];
      if (m.rejected > 0) notes.push(m.rejected + ' of the failed are rejected rows (failed for every metric)');
      if (m.failed > m.rejected && m.top_failure) notes.push('most common failure: ' + m.top_failure);
      if (m.n === 0 && m.skipped > 0 && m.top_skip) notes.push('all skipped: ' + m.top_skip);
      if (m.corpus !== undefined && m.corpus !== null) notes.push('corpus ' + fmt(m.corpus));
      table.appendChild(el('tr', { 'data-metric': m.name },
        el('td', null, m.name), el('td', { class: 'dir' }, dirLabel(m.higher_is_better)),
        el('td', { class: 'num' }, fmt(m.mean)),
        el('td', { class: 'num' }, m.ci95 ? '[' + fmt(m.ci95[0]) + ', ' + fmt(m.ci95[1]) + ']' : '-'),
        el('td', { class: 'num ok' }, m.n), el('td', { class: 'num skipped' }, m.skipped),
        el('td', { class: 'num failed' }, m.failed),
        el('td', null, m.n > 0 ? sparkline(m.histogram) : ''),
        el('td', { class: 'muted' }, notes.join('; '))));
    }
    return table;
  }

  function usageBlock(usage) {
    if (!usage) return el('p', { class: 'muted' }, 'No usage recorded (no summary given).');
    const table = el('table', { id: 'usage' });
    for (const [key, value] of Object.entries(usage)) {
      if (key === 'by_call') continue;
      table.appendChild(el('tr', null, el('th', null, key), el('td', { class: 'num' },
        key === 'cost_usd' ? '$' + fmt(value) : str(value))));
    }
    if (usage.by_call) {
      for (const [kind, u] of Object.entries(usage.by_call)) {
        table.appendChild(el('tr', null, el('th', null, 'by call: ' + kind), el('td', null, str(u))));
      }
    }
    return table;
  }

  function matchingRows() {
    const column = state.metric ? metricColumn(state.metric) : null;
    const wanted = STATUS.indexOf(state.status);
    const lo = state.min === '' ? -Infinity : Number(state.min);
    const hi = state.max === '' ? Infinity : Number(state.max);
    const needle = state.search.toLowerCase();
    const out = [];
    for (let i = 0; i < rowCount; i++) {
      if (column) {
        if (wanted >= 0 && column.status[i] !== wanted) continue;
        if (lo !== -Infinity || hi !== Infinity) {
          const v = column.scores[i];
          if (Number.isNaN(v) || v < lo || v > hi) continue;
        }
      }
      if (needle && !str(table.questions[i]).toLowerCase().includes(needle) &&
          !str(table.ids[i]).toLowerCase().includes(needle)) continue;
      out.push(i);
    }
    if (state.sort === 'score' && column) {
      const s = column.scores;
      const sign = state.descending ? -1 : 1;
      out.sort((a, b) => {
        const x = s[a], y = s[b];
        if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) - Number.isNaN(y) || a - b;
        return (x - y) * sign || a - b;
      });
    } else if (state.descending) {
      out.reverse();
    }
    return out;
  }

  let tableHost = null;
  function samplesSection() {
    const section = el('section', { id: 'samples' });
    const metricSelect = el('select', { id: 'filter-metric', on: { change: (e) => { state.metric = e.target.value; state.page = 0; drawTable(); } } });
    for (const m of metrics) {
      const option = el('option', { value: m.name }, m.name);
      if (m.name === state.metric) option.selected = true;
      metricSelect.appendChild(option);
    }
    const statusSelect = el('select', { id: 'filter-status', on: { change: (e) => { state.status = e.target.value; state.page = 0; drawTable(); } } },
      ['any', 'ok', 'skipped', 'failed'].map((s) => el('option', { value: s }, s)));
    statusSelect.value = state.status;
    const bound = (id, key) => {
      const input = el('input', { id, type: 'number', step: 'any', size: 6,
        on: { input: (e) => { state[key] = e.target.value; state.page = 0; drawTable(); } } });
      input.value = state[key];
      return input;
    };
    const search = el('input', { id: 'filter-search', type: 'search', placeholder: 'question or id',
      on: { input: (e) => { state.search = e.target.value; state.page = 0; drawTable(); } } });
    search.value = state.search;
    section.appendChild(el('div', { class: 'controls' },
      el('label', null, 'metric'), metricSelect, el('label', null, 'status'), statusSelect,
      el('label', null, 'score from'), bound('filter-min', 'min'), el('label', null, 'to'), bound('filter-max', 'max'),
      el('label', null, 'search'), search));
    tableHost = el('div', { id: 'sample-table-host' });
    section.appendChild(tableHost);
    drawTable();
    return section;
  }

  function sortHeader(label, key, numeric) {
    const arrow = state.sort === key ? (state.descending ? ' ▼' : ' ▲') : '';
    return el('th', { class: 'sortable' + (numeric ? ' num' : ''), 'data-sort': key, on: { click: () => {
      if (state.sort === key) state.descending = !state.descending;
      else { state.sort = key; state.descending = key === 'score'; }
      state.page = 0; drawTable();
    } } }, label + arrow);
  }

  function drawTable() {
    if (!tableHost) return;
    const matches = matchingRows();
    const pages = Math.max(1, Math.ceil(matches.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    const column = state.metric ? metricColumn(state.metric) : null;
    const view = el('table', { id: 'sample-table' });
    view.appendChild(el('tr', null, sortHeader('#', 'index', true), el('th', null, 'id'),
      el('th', null, 'question'), sortHeader(state.metric || 'score', 'score', true), el('th', null, 'status'),
      el('th', null, 'reason')));
    const first = state.page * PAGE_SIZE;
    for (const i of matches.slice(first, first + PAGE_SIZE)) {
      const status = column ? STATUS[column.status[i]] : '';
      const reasons = state.metric ? table.reasons[state.metric] : null;
      const reason = reasons && reasons.rows[i] >= 0 ? reasons.values[reasons.rows[i]] : '';
      view.appendChild(el('tr', { class: 'sample-row', 'data-index': i, on: { click: () => { location.hash = '#sample=' + i; } } },
        el('td', { class: 'num' }, i + 1), el('td', null, str(table.ids[i])),
        el('td', null, str(table.questions[i]).slice(0, 160)),
        el('td', { class: 'num' }, column ? fmt(column.scores[i]) : ''), el('td', { class: status }, status),
        el('td', { class: 'muted' }, str(reason))));
    }
    const pager = el('div', { class: 'pager' },
      el('button', { id: 'page-prev', on: { click: () => { if (state.page > 0) { state.page--; drawTable(); } } } }, '‹ previous'),
      el('span', { id: 'page-info' }, 'page ' + (state.page + 1) + ' of ' + pages),
      el('button', { id: 'page-next', on: { click: () => { if (state.page + 1 < pages) { state.page++; drawTable(); } } } }, 'next ›'),
      el('span', { id: 'match-count', class: 'muted' }, matches.length + ' of ' + rowCount + ' samples'));
    clear(tableHost);
    tableHost.appendChild(pager);
    tableHost.appendChild(view);
  }

  // ---- the first screen: the judgements of data.answer (made in C++), drawn ----
  function interval(ci) { return ci ? '[' + fmt(ci[0], 2) + ', ' + fmt(ci[1], 2) + ']' : ''; }

  function headlineCards(answer) {
    const box = el('div', { id: 'headline', class: 'cards' });
    for (const h of answer.headline) {
      const counts = h.n + ' scored' + (h.skipped ? ', ' + h.skipped + ' skipped' : '') + (h.failed ? ', ' + h.failed + ' failed' : '');
      const agreement = h.agreement ? el('div', { class: 'card-note', 'data-role': 'agreement' }, 'vs your labels: ' +
        h.agreement.statistic + ' ' + fmt(h.agreement.value, 2) + ' ' + interval(h.agreement.ci95) +
        (h.agreement.ceiling !== null ? ' (people: ' + fmt(h.agreement.ceiling, 2) + ')' : '')) : null;
      box.appendChild(el('div', { class: 'card', 'data-metric': h.metric },
        el('div', { class: 'card-name' }, h.metric + ' ' + (h.higher_is_better ? '↑' : '↓')),
        el('div', { class: 'card-value' }, fmt(h.mean, 2)),
        el('div', { class: 'card-note' }, h.part + ' · 95% CI ' + (interval(h.ci95) || '-') + ' · ' + counts), agreement));
    }
    if (answer.ragas_score && answer.ragas_score.value !== undefined) {
      box.appendChild(el('div', { class: 'card', 'data-metric': 'ragas_score' },
        el('div', { class: 'card-name' }, 'ragas_score'), el('div', { class: 'card-value' }, fmt(answer.ragas_score.value, 2)),
        el('div', { class: 'card-note' }, 'harmonic mean of ' + (answer.ragas_score.of || []).join(', '))));
    }
    return box;
  }

  function verdictBlock(w) {
    const box = el('div', { id: 'verdict', class: 'verdict ' + (w.part ? 'decided' : 'undecided'), 'data-part': w.part || '' },
      el('h2', null, 'Weaker part'), el('p', { class: 'verdict-head' }, w.headline),
      el('p', { id: 'verdict-why' }, w.explanation));
    if (w.retrieval.length + w.generation.length > 0) box.appendChild(RagmeterCharts.parts(w, { width: 560 }));
    if (w.not_counted.length) {
      box.appendChild(el('p', { class: 'muted' }, 'Not counted (end-to-end or other): ' + w.not_counted.join(', ')));
    }
    return box;
  }

  function worstBlock(worst) {
    const box = el('div', { id: 'worst' }, el('h2', null, 'Worst samples'));
    if (!worst.length) {
      box.appendChild(el('p', { class: 'muted' }, 'No sample scores in the worse half of any metric\u2019s range.'));
      return box;
    }
    const list = el('ol', { class: 'worst' });
    for (const w of worst) {
      const name = (w.id !== null ? str(w.id) + ': ' : '') + str(w.question);
      list.appendChild(el('li', { 'data-index': w.row },
        link(name.length > 110 ? name.slice(0, 110) + '…' : name, '#sample=' + w.row),
        el('ul', null, w.low_scores.map((l) => el('li', null, el('strong', null, l.metric + ' ' + fmt(l.score, 2)),
          l.why ? ': ' + l.why : '')))));
    }
    box.appendChild(list);
    return box;
  }

  function changesBlock(c) {
    const box = el('div', { id: 'changes' }, el('h2', null, 'Changed since the base run'),
      el('p', { id: 'changes-summary' }, c.summary),
      el('p', { class: 'muted' }, 'base: ' + str(c.base) + ' · ' + c.matched + ' samples matched'));
    if (c.changed.length) {
      const t = el('table', { class: 'changed' });
      for (const m of c.changed) {
        t.appendChild(el('tr', { 'data-metric': m.metric }, el('td', { class: m.verdict === 'worse' ? 'worse' : 'better' }, m.verdict),
          el('td', null, m.metric), el('td', { class: 'num' }, fmt(m.mean_base, 3) + ' → ' + fmt(m.mean_new, 3)),
          el('td', { class: 'num' }, signed(m.mean_diff) + ' ' + (m.ci95 ? '[' + signed(m.ci95[0]) + ', ' + signed(m.ci95[1]) + ']' : ''))));
      }
      box.appendChild(t);
    }
    return box;
  }

  function answerSection(answer) {
    const left = el('div', null, verdictBlock(answer.weaker_part), answer.changes ? changesBlock(answer.changes) : null);
    return el('section', { id: 'answer' }, headlineCards(answer),
      el('div', { class: 'answer-grid' }, left, worstBlock(answer.worst)));
  }

  // ---- charts below the fold ----
  function chartGrid(id, charts) { return el('div', { id, class: 'chart-grid' }, charts); }

  function distributionCharts() {
    return chartGrid('distributions', metrics.filter((m) => m.n > 0).map((m) =>
      RagmeterCharts.histogram(m.histogram, { title: m.name + ' (' + m.n + ' scored)', xLabel: 'score (' + (m.higher_is_better ? 'higher' : 'lower') + ' is better)' })));
  }

  function differenceCharts(comparison) {
    return chartGrid('differences', comparison.metrics.filter((m) => m.n > 0).map((m) =>
      RagmeterCharts.differences(m.differences, { title: m.metric + ': ' + m.verdict, xLabel: 'change per sample (← worse | better →)' })));
  }

  // Agreement with the user's labels: per metric its statistics with intervals and the
  // people's ceiling; calibration: what people said per score bin.
  function agreementCharts(agreement) {
    const charts = [];
    const binary = /^binary/.test(agreement.scale || '');
    for (const m of agreement.metrics) {
      const rows = Object.entries(m.statistics || {}).map(([name, s]) => ({ label: name + ' (' + s.subset + ')', value: s.value,
        ci: s.ci95, ceiling: s.ceiling ? s.ceiling.value : null }));
      if (rows.length) {
        charts.push(RagmeterCharts.intervals(rows, { title: m.metric + ': agreement with ' + (agreement.labels || 'labels'), x: [-1, 1],
          xLabel: 'value with 95% CI (◇ people\u2019s ceiling)' }));
      }
      const bins = m.calibration || [];
      if (bins.some((b) => b.n > 0)) {
        const labels = bins.filter((b) => b.n > 0).map((b) => b.mean_label);
        const y = binary ? [0, 1] : [Math.min(...labels), Math.max(...labels)];
        charts.push(RagmeterCharts.calibration(bins, { title: m.metric + ': calibration', low: bins[0].low,
          high: bins[bins.length - 1].high, y: y[1] > y[0] ? y : [y[0] - 1, y[0] + 1], diagonal: binary && bins[0].low === 0 && bins[bins.length - 1].high === 1,
          xLabel: 'mean score in the bin', yLabel: binary ? 'share labelled good' : 'mean label' }));
      }
      for (const e of m.errors || []) charts.push(el('p', { class: 'muted' }, m.metric + ': ' + e));
    }
    return chartGrid('agreement', charts);
  }

  function runOverview() {
    const identity = data.identity || {};
    const parts = [answerSection(data.answer),
      el('h2', null, 'Run'), identityBlock(identity),
      el('h2', null, 'Metrics'), metricsTable(),
      el('h2', null, 'Distributions'), distributionCharts()];
    if (data.changes) {
      parts.push(el('h2', null, 'Paired differences from ' + data.changes.base + ' (' + data.changes.matched + ' samples matched)'),
        differenceCharts(data.changes));
    }
    if (data.agreement) parts.push(el('h2', null, 'Agreement with your labels (' + data.agreement.labels + ')'), agreementCharts(data.agreement));
    parts.push(el('h2', null, 'Usage and cost'), usageBlock(data.usage),
      el('h2', null, 'Samples'), samplesSection());
    return parts;
  }

  // Images among a row's contexts: rank -> {thumbnail, ocr, source} from the multimodal
  // metrics' evidence (docs/images.md); items that are images by their form are images too.
  function isImageItem(item) {
    if (item && typeof item === 'object') return item.type === 'image' || item.type === 'image_url';
    return typeof item === 'string' && /^data:image\//i.test(item);
  }
  function collectImages(row) {
    const images = new Map();
    for (const ev of Object.values(row.evidence || {})) {
      if (!ev || !Array.isArray(ev.images)) continue;
      for (const im of ev.images) {
        if (im && Number.isInteger(im.rank) && !images.has(im.rank)) images.set(im.rank, im);
      }
    }
    return images;
  }
  // Positions in the row's context list of its text items: text metrics number chunks
  // among the texts only, the multimodal ones among all contexts.
  function textPositions(contexts, images) {
    const out = [];
    (Array.isArray(contexts) ? contexts : []).forEach((item, j) => {
      if (!images.has(j) && !isImageItem(item)) out.push(j);
    });
    return out;
  }

  // Claims from every metric's evidence, one entry per distinct claim and verdict.
  function collectClaims(evidence, positions) {
    const claims = [];
    const byKey = new Map();
    for (const [metric, ev] of Object.entries(evidence || {})) {
      if (!ev || !Array.isArray(ev.claims)) continue;
      const all = Array.isArray(ev.images) || !positions;
      for (const c of ev.claims) {
        if (!c || typeof c !== 'object') continue;
        const chunks = (Array.isArray(c.chunks) ? c.chunks.filter((x) => Number.isInteger(x)) : [])
          .map((j) => (all ? j : positions[j])).filter((j) => j !== undefined);
        const key = str(c.id || c.claim) + '|' + str(c.verdict) + '|' + chunks.join(',');
        if (!byKey.has(key)) {
          byKey.set(key, { text: str(c.claim !== undefined ? c.claim : c.text), verdict: str(c.verdict),
                           reason: str(c.reason), chunks, metrics: [] });
          claims.push(byKey.get(key));
        }
        byKey.get(key).metrics.push(metric);
      }
    }
    return claims;
  }

  // An image context: its thumbnail (a data: URI, which the page's CSP allows and nothing
  // else) and the text OCR read in it, beside it.
  function imageContext(item, image) {
    const uri = image && typeof image.thumbnail === 'string' ? image.thumbnail
      : (typeof item === 'string' ? item : '');
    const figure = el('div', { class: 'image-context' });
    if (/^data:image\/(png|jpeg|gif|webp);base64,/i.test(uri)) {
      figure.appendChild(el('img', { class: 'thumb', src: uri, alt: 'image context' }));
    }
    const side = el('div', null);
    if (image && image.source) side.appendChild(el('div', { class: 'muted' }, str(image.source)));
    else if (item && typeof item === 'object') side.appendChild(el('div', { class: 'muted' }, JSON.stringify(item)));
    const passages = image && image.ocr && Array.isArray(image.ocr.passages) ? image.ocr.passages : null;
    if (passages) {
      side.appendChild(el('div', { class: 'muted' }, 'OCR (' + str(image.ocr.engine) + ', ' + str(image.ocr.language) + '):'));
      side.appendChild(el('div', { class: 'ocr' }, passages.map((p) => str(p.text)).join('\n\n') || '(no text found)'));
    }
    figure.appendChild(side);
    return figure;
  }

  function contextsBlock(contexts, claims, images = new Map()) {
    const host = el('div', { class: 'contexts' });
    if (!Array.isArray(contexts) || contexts.length === 0) return el('p', { class: 'muted' }, 'none');
    contexts.forEach((text, j) => {
      const supported = [];
      claims.forEach((c, k) => { if (c.verdict === 'Entailment' && c.chunks.includes(j)) supported.push(k + 1); });
      const image = images.get(j);
      const body = image || isImageItem(text) ? imageContext(text, image) : el('div', null, str(text));
      const box = el('div', { class: 'context' + (supported.length ? ' supports' : ''), 'data-context': j },
        el('span', { class: 'badge' }, (image || isImageItem(text) ? 'image C' : 'C') + (j + 1)),
        supported.length ? el('span', { class: 'badge good' }, 'supports claim ' + supported.join(', ')) : null,
        body);
      host.appendChild(box);
    });
    return host;
  }

  function claimsTable(claims) {
    if (claims.length === 0) return el('p', { class: 'muted' }, 'No claims in the evidence.');
    const table = el('table', { id: 'claims' });
    table.appendChild(el('tr', null, el('th', null, '#'), el('th', null, 'claim'), el('th', null, 'verdict'),
      el('th', null, 'supporting contexts'), el('th', null, 'reason'), el('th', null, 'metrics')));
    claims.forEach((c, k) => table.appendChild(el('tr', null, el('td', { class: 'num' }, k + 1), el('td', null, c.text),
      el('td', { class: c.verdict === 'Entailment' ? 'ok' : 'failed' }, c.verdict),
      el('td', null, c.chunks.map((j) => 'C' + (j + 1)).join(', ')), el('td', null, c.reason),
      el('td', { class: 'muted' }, c.metrics.join(', ')))));
    return table;
  }

  function scoresTable(row, only) {
    const table = el('table', { class: 'scores' });
    table.appendChild(el('tr', null, el('th', null, 'metric'), el('th', { class: 'num' }, 'score'),
      el('th', null, 'status'), el('th', null, 'reason')));
    for (const name of Object.keys(row.status || {})) {
      if (only && name !== only) continue;
      const s = str(row.status[name]);
      table.appendChild(el('tr', { 'data-metric': name }, el('td', null, name),
        el('td', { class: 'num' }, row.scores ? fmt(row.scores[name]) : '-'), el('td', { class: s }, s),
        el('td', null, row.reasons ? str(row.reasons[name]) : '')));
    }
    return table;
  }

  // ================= a conversation (docs/agents.md) =================
  // The row's messages come read by ragmeter's own reader (row.conversation_view); a turn's
  // scores are in each metric's evidence.turns, which names the turn's last message.
  function toolCallsBlock(calls) {
    return el('div', null, calls.map((c) => el('div', { class: 'tool-call' },
      '→ ' + str(c.name) + '(' + JSON.stringify(c.args || {}) + ')' +
      (c.output !== undefined ? ' = ' + JSON.stringify(c.output) : ''))));
  }

  function turnsEndingAt(row, index) {
    const out = [];
    for (const [metric, ev] of Object.entries(row.evidence || {})) {
      if (!ev || !Array.isArray(ev.turns)) continue;
      for (const t of ev.turns) if (t && t.message === index) out.push({ metric, turn: t });
    }
    return out;
  }

  function turnScores(entries) {
    const table = el('table', { class: 'scores turn-scores' });
    table.appendChild(el('tr', null, el('th', null, 'metric'), el('th', { class: 'num' }, 'score'),
      el('th', null, 'status'), el('th', null, 'reason')));
    for (const { metric, turn } of entries) {
      const s = str(turn.status);
      table.appendChild(el('tr', { 'data-metric': metric }, el('td', null, metric),
        el('td', { class: 'num' }, turn.score !== undefined ? fmt(turn.score) : '-'),
        el('td', { class: s }, s), el('td', null, str(turn.reason))));
    }
    return table;
  }

  function messageBlock(row, m, index, contextsSoFar) {
    const role = str(m.role);
    const ending = turnsEndingAt(row, index);
    const box = el('div', { class: 'message ' + role, 'data-message': index },
      el('span', { class: 'badge' }, role),
      ending.length ? el('span', { class: 'badge' }, 'turn ' + ending[0].turn.turn) : null,
      m.tool_call_id ? el('span', { class: 'muted' }, 'answers ' + str(m.tool_call_id)) : null);
    if (m.content) box.appendChild(el('div', { class: 'text' }, str(m.content)));
    if (Array.isArray(m.tool_calls) && m.tool_calls.length) box.appendChild(toolCallsBlock(m.tool_calls));
    if (Array.isArray(m.contexts)) contextsSoFar.push(...m.contexts);
    if (ending.length) {
      // The turn's passages, with the claims its evidence found supported in them.
      const evidence = {};
      for (const { metric, turn } of ending) if (turn.evidence) evidence[metric] = turn.evidence;
      const contexts = contextsSoFar.splice(0);
      if (contexts.length) box.appendChild(contextsBlock(contexts, collectClaims(evidence)));
      const claims = collectClaims(evidence);
      if (claims.length) box.appendChild(claimsTable(claims));
      box.appendChild(turnScores(ending));
    }
    return box;
  }

  function conversationBody(row) {
    const view = row.conversation_view;
    const parts = [el('h2', null, 'Conversation (' + str(view.format) + ')')];
    const list = el('div', { id: 'sample-conversation' });
    const contextsSoFar = [];
    (view.messages || []).forEach((m, i) => {
      if (m.role === 'user') contextsSoFar.splice(0);  // a new turn
      list.appendChild(messageBlock(row, m, i, contextsSoFar));
    });
    parts.push(list);
    if (Array.isArray(view.reference_tool_calls)) {
      parts.push(el('h2', null, 'Expected tool calls'),
        view.reference_tool_calls.length ? toolCallsBlock(view.reference_tool_calls)
          : el('p', { class: 'muted' }, 'none (no tool should be called)'));
    }
    if (Array.isArray(view.reference_topics)) {
      parts.push(el('h2', null, 'Reference topics'), el('div', { class: 'text' }, view.reference_topics.join(', ')));
    }
    const reference = row.reference;
    if (reference !== undefined && reference !== null) parts.push(el('h2', null, 'Expected outcome (reference)'), el('div', { class: 'text' }, str(reference)));
    parts.push(el('h2', null, 'Scores, skips and failures'), scoresTable(row));
    return parts;
  }

  const CONVERSATION_SHOWN = new Set(['user_input', 'messages', 'turns', 'conversation_view', 'reference',
    'reference_tool_calls', 'expected_tools', 'reference_topics', 'scores', 'status', 'reasons', 'evidence']);

  const SHOWN = new Set(['user_input', 'question', 'response', 'answer', 'reference', 'ground_truth', 'ground_truths',
    'retrieved_contexts', 'contexts', 'scores', 'status', 'reasons', 'evidence']);

  // A single-turn row: question, response, reference, contexts with the claims they support.
  function singleTurnBody(row) {
    const images = collectImages(row);
    const contexts = field(row, ['retrieved_contexts', 'contexts']);
    const claims = collectClaims(row.evidence, images.size ? textPositions(contexts, images) : null);
    return [
      el('h2', null, 'Question'), el('div', { class: 'text', id: 'sample-question' }, str(field(row, ['user_input', 'question']))),
      el('h2', null, 'Response'), el('div', { class: 'text', id: 'sample-response' }, str(field(row, ['response', 'answer']))),
      el('h2', null, 'Reference'), el('div', { class: 'text', id: 'sample-reference' }, str(field(row, ['reference', 'ground_truth', 'ground_truths']))),
      el('h2', null, 'Retrieved contexts'), contextsBlock(contexts, claims, images),
      el('h2', null, 'Claims'), claimsTable(claims),
      el('h2', null, 'Scores, skips and failures'), scoresTable(row)];
  }

  function sampleBody(row) {
    const parts = [];
    if (row.row_error) {
      parts.push(el('h2', null, 'Rejected row'), el('div', { class: 'text failed' }, str(row.row_error)));
    }
    const conversation = row.conversation_view && typeof row.conversation_view === 'object';
    parts.push(...(conversation ? conversationBody(row) : singleTurnBody(row)));
    const other = Object.keys(row).filter((k) => !(conversation ? CONVERSATION_SHOWN : SHOWN).has(k));
    if (other.length) {
      const dl = el('dl', { class: 'identity', id: 'sample-fields' });
      for (const k of other) { dl.appendChild(el('dt', null, k)); dl.appendChild(el('dd', null, valueNode(row[k]))); }
      parts.push(el('h2', null, 'Other fields'), dl);
    }
    if (row.evidence && Object.keys(row.evidence).length) {
      parts.push(el('details', null, el('summary', null, 'All evidence (JSON)'),
        el('pre', { class: 'text' }, JSON.stringify(row.evidence, null, 2))));
    }
    return parts;
  }


  function samplePage(index) {
    const row = rowAt(index);
    if (!row) return [el('p', null, 'No sample ' + (index + 1) + '.')];
    return [el('p', null, link('← all samples', '#'),
      index > 0 ? ' · ' : '', index > 0 ? link('previous', '#sample=' + (index - 1)) : '',
      index + 1 < rowCount ? ' · ' : '', index + 1 < rowCount ? link('next', '#sample=' + (index + 1)) : ''),
      el('h2', { id: 'sample-title' }, 'Sample ' + (index + 1) + (row.id !== undefined ? ' (' + str(row.id) + ')' : '')),
      ...sampleBody(row)];
  }

  // ================= a comparison =================
  function compareOverview() {
    const c = data.comparison;
    const runs = el('dl', { class: 'identity', id: 'identity' });
    for (const [label, value] of [['ragmeter', c.ragmeter_version], ['base', c.base], ['new', c.new],
      ['matched', c.matched], ['only in base', c.only_in_base.length], ['only in new', c.only_in_new.length]]) {
      runs.appendChild(el('dt', null, label));
      runs.appendChild(el('dd', null, str(value)));
    }
    const parts = [el('p', { id: 'changes-summary', class: 'verdict-head' }, data.answer.changes.summary), el('h2', null, 'Runs'), runs];
    const table = el('table', { id: 'comparison' });
    table.appendChild(el('tr', null, ['metric', 'direction', 'n', 'base', 'new', 'diff (new - base)', '95% CI of diff', 'p (sign-flip)',
      'p Holm', 'win / tie / loss', 'verdict'].map((h, i) => el('th', { class: i >= 2 && i <= 8 ? 'num' : '' }, h))));
    for (const m of c.metrics) {
      const text = m.verdict, cls = m.verdict === 'better' ? 'better' : m.verdict === 'worse' ? 'worse' : 'muted';
      table.appendChild(el('tr', { 'data-metric': m.metric }, el('td', null, m.metric), el('td', { class: 'dir' }, dirLabel(m.higher_is_better)),
        el('td', { class: 'num' }, m.n), el('td', { class: 'num' }, fmt(m.mean_base)), el('td', { class: 'num' }, fmt(m.mean_new)),
        el('td', { class: 'num' }, signed(m.mean_diff)),
        el('td', { class: 'num' }, m.ci95 ? '[' + signed(m.ci95[0]) + ', ' + signed(m.ci95[1]) + ']' : '-'),
        el('td', { class: 'num' }, pvalue(m.p_value) + (m.p_exact ? ' exact' : ' MC')), el('td', { class: 'num' }, pvalue(m.p_holm)),
        el('td', { class: 'num' }, m.wins + ' / ' + m.ties + ' / ' + m.losses), el('td', { class: cls }, text)));
    }
    parts.push(el('h2', null, 'Metrics'), table,
      el('p', { class: 'muted' }, 'diff: paired mean difference with a paired bootstrap 95% interval; p: paired sign-flip test; ' +
        'p Holm: corrected across the ' + c.holm_family + ' metric' + (c.holm_family === 1 ? '' : 's') +
        ' with a non-zero difference (all ties: p Holm 1); a verdict needs p Holm < ' + c.alpha +
        ' and an interval clear of 0.'));
    parts.push(el('h2', null, 'Paired differences'), differenceCharts(c));
    for (const [label, keys] of [['Only in base', c.only_in_base], ['Only in new', c.only_in_new]]) {
      if (keys.length) parts.push(el('h2', null, label + ' (' + keys.length + ')'), el('ul', null, keys.map((k) => el('li', null, k))));
    }
    parts.push(el('h2', null, 'Samples that changed most'));
    for (const m of c.metrics) {
      if (!m.top_changes.length) continue;
      parts.push(el('h2', null, m.metric));
      for (const ch of m.top_changes) {
        const side = (title, row, score) => {
          const claims = collectClaims(row.evidence ? { [m.metric]: row.evidence[m.metric] } : {});
          return el('div', null, el('h3', null, title + ': ' + fmt(score)),
            el('div', { class: 'text' }, str(field(row, ['response', 'answer']))),
            contextsBlock(field(row, ['retrieved_contexts', 'contexts']), claims), claimsTable(claims),
            scoresTable(row, m.metric));
        };
        parts.push(el('div', { class: 'change' }, el('div', null, el('strong', null, signed(ch.oriented_diff)), ' ', ch.key),
          el('div', { class: 'side' }, side('base', ch.base_row, ch.base), side('new', ch.new_row, ch.new))));
      }
    }
    return parts;
  }

  // ================= routing =================
  function render() {
    clear(app);
    clear(nav);
    nav.appendChild(link('overview', '#'));
    let parts;
    if (data.kind === 'compare') {
      document.getElementById('title').textContent = 'ragmeter comparison';
      parts = compareOverview();
    } else {
      const match = /^#sample=(\d+)$/.exec(location.hash);
      tableHost = null;
      parts = match ? samplePage(Number(match[1])) : runOverview();
    }
    for (const p of parts.flat()) app.appendChild(p);
    window.scrollTo(0, 0);
    if (!document.body.dataset.rendered) {
      // Milliseconds from navigation start to the first complete render (bench/report_render.py).
      document.body.dataset.renderMs = String(Math.round(performance.now()));
    }
    document.body.setAttribute('data-rendered', '1');
  }
  window.addEventListener('hashchange', render);
  render();
})();
