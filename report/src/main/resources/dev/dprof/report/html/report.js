// The dprof report: draws the sections from the JSON embedded in the page (ReportData). The
// status element records what drew and what failed, for the headless-browser test and for users.
(function () {
  'use strict';
  const status = document.getElementById('dprof-status');
  const errors = [];
  window.addEventListener('error', e => {
    errors.push(String(e.message));
    status.dataset.errors = String(errors.length);
    status.dataset.lastError = String(e.message);
  });
  const data = JSON.parse(document.getElementById('dprof-data').textContent);
  const root = document.getElementById('report');
  const sections = [];
  let charts = 0;
  const palette = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7',
    '#9c755f', '#bab0ac'];

  const fmt = (v, d = 3) => v === null || v === undefined || Number.isNaN(v) ? '–' : Number(v).toFixed(d);
  const pct = v => v === null || v === undefined ? '–' : (100 * v).toFixed(3) + '%';
  const ms = ns => ns === null || ns === undefined ? 'no bound' : (ns / 1e6).toFixed(3);
  // The replay's word on processes without a rate bound: why its figures have none, or whom it ran without.
  function replayNote(sec, r) {
    (r.notReplayed || []).forEach(p => sec.append(el('div', {class: 'note'}, 'Left out of the replay: ' + p)));
    if (r.noBound) {
      sec.append(el('div', {class: 'note'}, 'No bound: ' + r.noBound + '.'));
      return true;
    }
    return false;
  }
  const range = (lo, hi, f) => '[' + f(lo) + ', ' + f(hi) + ']';

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, v));
    children.forEach(c => e.append(c));
    return e;
  }

  function section(id, title, note) {
    const s = el('section', {id});
    s.append(el('h2', {}, title));
    if (note) {
      s.append(el('div', {class: 'note'}, note));
    }
    root.append(s);
    sections.push(id);
    return s;
  }

  /** A table whose headers sort it: numbers numerically (by the data-sort value), text alphabetically. */
  function table(headers, rows, sortable) {
    const t = el('table');
    const head = el('tr');
    headers.forEach((h, i) => {
      const th = el('th', sortable ? {class: 'sortable'} : {}, h);
      if (sortable) {
        th.addEventListener('click', () => sortBy(t, i));
      }
      head.append(th);
    });
    t.append(el('thead', {}, head));
    const body = el('tbody');
    rows.forEach(r => {
      const tr = el('tr');
      r.forEach(c => {
        const td = el('td');
        if (Array.isArray(c)) {
          td.textContent = c[0];
          td.dataset.sort = String(c[1]);
        } else {
          td.textContent = c;
        }
        tr.append(td);
      });
      body.append(tr);
    });
    t.append(body);
    return t;
  }

  function sortBy(t, column) {
    const body = t.tBodies[0];
    const rows = Array.from(body.rows);
    const key = r => r.cells[column].dataset.sort !== undefined ? Number(r.cells[column].dataset.sort)
      : r.cells[column].textContent;
    const descending = t.dataset.sorted === String(column) && t.dataset.order !== 'desc';
    rows.sort((a, b) => {
      const x = key(a), y = key(b);
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return descending ? -c : c;
    });
    t.dataset.sorted = String(column);
    t.dataset.order = descending ? 'desc' : 'asc';
    rows.forEach(r => body.append(r));
  }

  function chart(parent, config, height) {
    const box = el('div', {class: 'chart', style: 'height:' + (height || 300) + 'px'});
    const canvas = el('canvas');
    box.append(canvas);
    parent.append(box);
    config.options = Object.assign({animation: false, maintainAspectRatio: false, responsive: true}, config.options);
    new Chart(canvas, config);
    charts++;
  }

  /** Floating bars [lo, hi] with the truth as points. */
  function boundsChart(parent, labels, los, his, truths, axisTitle) {
    const datasets = [{type: 'bar', label: 'bound [lo, hi]', data: labels.map((_, i) => [los[i], Math.max(his[i], los[i] + 1e-9)]),
      backgroundColor: '#4e79a7aa', borderColor: '#4e79a7', borderWidth: 1, barPercentage: 0.6, minBarLength: 3}];
    if (truths.some(t => t !== undefined && t !== null)) {
      datasets.push({type: 'scatter', label: 'truth', data: truths.map((t, i) => ({x: t, y: labels[i]})),
        backgroundColor: '#e15759', pointStyle: 'line', pointRadius: 9, borderColor: '#e15759', borderWidth: 2});
    }
    chart(parent, {type: 'bar', data: {labels, datasets},
      options: {indexAxis: 'y', scales: {x: {title: {display: true, text: axisTitle}, min: 0},
        y: {type: 'category'}}}}, 60 + 26 * labels.length);
  }

  function summary() {
    const s = data.summary;
    const sec = section('summary', 'Run and calibration',
      'The bounds rest on: ' + s.assumption + '. Sync: ' + s.sync + '.');
    sec.append(table(['', ''], [
      ['events', s.events], ['processes', s.processes.length], ['threads', s.threads.length],
      ['matched messages', s.matchedMessages], ['unmatched sends / receives', s.unmatchedSends + ' / ' + s.unmatchedReceives],
      ['barrier instances', s.barrierInstances], ['events without a bound', s.unboundedEvents],
      ['reference', s.referenceDomain], ['reference rate', (s.referenceTickHz / 1e9).toFixed(4) + ' GHz']]));
    if (s.unmatchedLines && s.unmatchedLines.length) {
      sec.append(el('div', {class: 'note'}, 'Unmatched, by kind and reason: ' + s.unmatchedLines.join('; ')));
    }
    sec.append(table(['process', 'quality', 'zeros', 'median zero µs', 'frequency bound ppm', 'rate [lo, hi]',
      'lost events', 'ended', 'counter'], s.processes.map(p => [p.label, p.quality, p.zeros ?? '–',
      p.medianZeroWidthNs === undefined ? '–' : fmt(p.medianZeroWidthNs / 1e3),
      p.frequencyWidthPpm === undefined ? '–' : fmt(p.frequencyWidthPpm, 4),
      p.slopeLow === null ? '–' : range(p.slopeLow, p.slopeHigh, v => fmt(v, 9)), p.lostEvents, p.ended ? 'yes' : 'no',
      p.clockCheck ?? '–']), true));
    if (s.leftOut && s.leftOut.length) {
      sec.append(table(['process left out', 'file', 'why', 'lost events', 'counted by'], s.leftOut.map(l => [l.queue,
        l.file, l.reason, (l.lostEventsExact ? '' : 'at least ') + l.lostEvents, l.countedBy]), true));
    }
    if (s.problems.length) {
      sec.append(el('div', {class: 'note'}, 'Problems: ' + s.problems.join('; ')));
    }
  }

  function statistics() {
    const sec = section('statistics', 'Regions', 'Inclusive times, probe cost subtracted; open: instances still running when the recording ended, in no count or time; click a header to sort.');
    // every region, then every dynamic instance of a region (name[id], e.g. one rank's body)
    const rows = data.statistics.regions.concat(data.statistics.instances);
    const truth = rows.some(r => r.truthTotalNs !== undefined);
    const headers = ['region', 'kind', 'count', 'open', 'total ms [lo, hi]', 'mean µs [lo, hi]', 'min µs', 'max µs']
      .concat(truth ? ['truth total ms'] : []);
    // A region whose every instance was still open at the end has no duration: shown as open, not as 0 or ∞.
    const timed = (r, text) => r.count > 0 ? text : (r.open > 0 ? 'open' : '–');
    sec.append(table(headers, rows.map(r => [r.name, r.kind, [r.count, r.count], [r.open ?? 0, r.open ?? 0],
      [timed(r, range(r.totalNs.lo, r.totalNs.hi, ms)), r.totalNs.lo],
      [timed(r, range(r.meanNs.lo / 1e3, r.meanNs.hi / 1e3, v => fmt(v))), r.meanNs.lo],
      [timed(r, range(r.minNs.lo / 1e3, r.minNs.hi / 1e3, v => fmt(v))), r.minNs.lo],
      [timed(r, range(r.maxNs.lo / 1e3, r.maxNs.hi / 1e3, v => fmt(v))), r.maxNs.lo]]
      .concat(truth ? [[r.truthTotalNs === undefined ? timed(r, '–') : ms(r.truthTotalNs), r.truthTotalNs ?? -1]] : [])),
      true));
  }

  function straggler() {
    if (!data.straggler) {
      return;
    }
    const st = data.straggler;
    const sec = section('straggler', 'Straggler score (dCSP)', 'Share of the span in which a process works in ' + st.body
      + ' while every other one waits in ' + st.barrier + '.');
    boundsChart(sec, st.processes.map(p => p.label), st.processes.map(p => p.lo), st.processes.map(p => p.hi),
      st.processes.map(p => p.truth), 'share of the span');
  }

  function whatIf() {
    const w = data.whatif;
    const sec = section('whatif', 'What-if (dCOZ)', 'Predicted program speedup if a region got faster by the cut, '
      + 'causality respected; the band is the sound [lo, hi]. Span: ' + (w.from || 'first event') + ' → '
      + (w.to || 'last event') + '.');
    if (replayNote(sec, w)) {
      return;
    }
    const box = el('div', {class: 'curves'});
    sec.append(box);
    w.curves.forEach((c, i) => {
      const holder = el('div');
      box.append(holder);
      const cuts = c.points.map(p => 100 * p.speedup);
      const datasets = [
        {label: 'lo', data: c.points.map(p => 100 * p.lo), borderColor: palette[i % 10], pointRadius: 0, fill: false},
        {label: 'hi', data: c.points.map(p => 100 * p.hi), borderColor: palette[i % 10], pointRadius: 0,
          backgroundColor: palette[i % 10] + '44', fill: '-1'}];
      if (c.points.some(p => p.truth !== undefined)) {
        datasets.push({label: 'truth', data: c.points.map(p => 100 * p.truth), borderColor: '#e15759',
          borderDash: [4, 3], pointRadius: 2, fill: false});
      }
      chart(holder, {type: 'line', data: {labels: cuts, datasets}, options: {plugins: {title: {display: true, text: c.region}},
        scales: {x: {title: {display: true, text: 'cut %'}}, y: {title: {display: true, text: 'program speedup %'}, min: 0}}}}, 240);
    });
    sec.append(table(['region', 'speedup at 50% [lo, hi]', 'truth'], w.predictions.slice(0, 12)
      .map(p => [p.region, range(p.lo, p.hi, pct), p.truth === undefined ? '–' : pct(p.truth)])));
  }

  function criticalPath() {
    const c = data.criticalPath;
    const sec = section('criticalPath', 'Critical path', 'Length [' + ms(c.lengthNsLo) + ', ' + ms(c.lengthNsHi)
      + '] ms. Share of the path per region (inclusive), and the path recomputed with a region at zero time '
      + '(critical-path zeroing). The timeline below highlights the path through the interval midpoints.');
    if (replayNote(sec, c)) {
      return;
    }
    const shares = c.shares.filter(s => s.hi > 0);
    boundsChart(sec, shares.map(s => s.name), shares.map(s => s.lo), shares.map(s => s.hi), shares.map(s => s.truth),
      'share of the critical path');
    sec.append(table(['zeroing: region', 'path shorter by [lo, hi]', 'truth'], c.zeroing.map(z => [z.region,
      range(z.lo, z.hi, pct), z.truth === undefined ? '–' : pct(z.truth)])));
    if (c.handoffsOnPath) {
      sec.append(el('div', {}, 'Handoff edges between threads on the path: [' + c.handoffsOnPath.lo + ', '
        + c.handoffsOnPath.hi + ']' + (c.handoffsOnPath.truth === undefined ? '' : ' (truth ' + c.handoffsOnPath.truth + ')')
        + '.'));
    }
    if (c.incomplete) {
      sec.append(el('div', {class: 'note'}, c.incomplete.note));
      sec.append(el('pre', {}, c.incomplete.suggestion));
    }
  }

  function sync() {
    if (!data.sync) {
      return;
    }
    const sec = section('sync', 'Synchronizations side by side', 'FreeZer on interval midpoints, the others on their '
      + 'points, all on this run: fast sends (closer than the minimum latency), reversed messages, inversions, and the '
      + 'error against the truth where the clocks were simulated.');
    const truth = data.sync.methods.some(m => m.errorNs !== undefined);
    const errors = e => e ? [fmt(e.mean / 1e3), fmt(e.p99 / 1e3), fmt(e.max / 1e3)] : ['–', '–', '–'];
    sec.append(table(['method', 'messages', 'fast sends', 'reversed', 'inversions'].concat(truth
      ? ['error mean µs', 'p99 µs', 'max µs'] : []), data.sync.methods.map(m => [m.method, m.messages,
      fmt(m.fastSendsPercent, 2) + '%', m.reversed, m.inversions].concat(truth ? errors(m.errorNs) : []))));
    const scores = data.sync.straggler;
    if (scores) {
      const labels = scores[data.sync.methods[0].method].processes.map(p => p.label);
      const datasets = data.sync.methods.map((m, i) => ({label: m.method,
        data: scores[m.method].processes.map(p => [p.lo, Math.max(p.hi, p.lo + 1e-9)]), backgroundColor: palette[i % 10],
        minBarLength: 3}));
      chart(sec, {type: 'bar', data: {labels, datasets}, options: {indexAxis: 'y',
        plugins: {title: {display: true, text: 'straggler score by method'}}, scales: {x: {min: 0}}}},
      80 + 30 * labels.length * datasets.length / 2);
    }
  }

  /** Threads as rows, grouped by process; each span's certain part dark, its uncertain ends light. */
  function timeline() {
    const tl = data.timeline;
    const sec = section('timeline', 'Timeline', 'Per thread the ' + tl.maxSpansPerThread + ' longest region '
      + 'instances and ' + Math.min(tl.messages, tl.maxMessages) + ' of ' + tl.messages + ' messages (sampled; '
      + 'level of detail for long runs). Dark: certainly inside the region; light: possibly (the intervals of its '
      + 'enter and exit). Arrows: messages, at their midpoints. Gold: the critical path through the midpoints. '
      + 'The sliders choose the window shown.');
    const names = data.summary.regionNames;
    const legend = el('div', {class: 'legend'});
    names.forEach((n, i) => legend.append(el('span', {}, el('i', {style: 'background:' + palette[i % 10]}), n)));
    sec.append(legend);
    const rowHeight = 22;
    const label = 190;
    const width = 1100;
    const threads = tl.threads;
    const canvas = el('canvas', {id: 'timeline', width: String(width), height: String(rowHeight * threads.length + 30)});
    const fromInput = el('input', {type: 'range', min: '0', max: '1000', value: '0', 'aria-label': 'window start'});
    const toInput = el('input', {type: 'range', min: '0', max: '1000', value: '1000', 'aria-label': 'window end'});
    const shown = el('span', {class: 'note'});
    sec.append(el('div', {}, 'window: ', fromInput, ' … ', toInput, ' ', shown));
    sec.append(canvas);
    const g = canvas.getContext('2d');
    const total = Math.max(tl.spanNs, 1);
    const rowOf = {};
    threads.forEach((t, i) => rowOf[t.stream] = i);

    /** Draws the part [from, to) of the run, in ns from its first event. */
    function draw(from, to) {
      const span = Math.max(to - from, 1);
      const x = ns => label + (width - label - 10) * Math.min(Math.max(ns - from, -span * 0.01), span * 1.01) / span;
      g.clearRect(0, 0, canvas.width, canvas.height);
      g.font = '11px sans-serif';
      shown.textContent = (from / 1e6).toFixed(3) + ' – ' + (to / 1e6).toFixed(3) + ' ms';
      threads.forEach((t, i) => {
        const y = 10 + i * rowHeight;
        g.fillStyle = i % 2 ? '#fafafa' : '#fff';
        g.fillRect(0, y, width, rowHeight);
        g.fillStyle = '#333';
        const process = data.summary.processes[t.process];
        g.fillText((process ? process.label : t.process) + ' / ' + t.name, 4, y + 14, label - 8);
      });
      (data.criticalPath.trace || []).filter(seg => seg[2] >= from && seg[1] <= to).forEach(seg => {
        const y = 10 + rowOf[seg[0]] * rowHeight;
        g.fillStyle = '#f1ce63';
        g.fillRect(x(seg[1]), y + 1, Math.max(1, x(seg[2]) - x(seg[1])), rowHeight - 2);
      });
      threads.forEach((t, i) => {
        const y = 10 + i * rowHeight;
        t.spans.filter(s => s[5] >= from && s[2] <= to).forEach(s => {
          const [region, depth, enterLo, enterHi, exitLo, exitHi] = s;
          const inset = Math.min(depth, 3) * 3;
          const color = palette[region % 10];
          g.fillStyle = color + '55';
          g.fillRect(x(enterLo), y + 3 + inset, Math.max(1, x(exitHi) - x(enterLo)), rowHeight - 6 - 2 * inset);
          if (exitLo > enterHi) {
            g.fillStyle = color;
            g.fillRect(x(enterHi), y + 3 + inset, Math.max(1, x(exitLo) - x(enterHi)), rowHeight - 6 - 2 * inset);
          }
        });
      });
      g.strokeStyle = '#222';
      g.lineWidth = 0.6;
      tl.arrows.forEach(a => {
        const [sender, sendLo, sendHi, receiver, receiveLo, receiveHi] = a;
        if (rowOf[sender] === undefined || rowOf[receiver] === undefined || receiveHi < from || sendLo > to) {
          return;
        }
        const x1 = x((sendLo + sendHi) / 2), y1 = 10 + rowOf[sender] * rowHeight + rowHeight / 2;
        const x2 = x((receiveLo + receiveHi) / 2), y2 = 10 + rowOf[receiver] * rowHeight + rowHeight / 2;
        g.beginPath();
        g.moveTo(x1, y1);
        g.lineTo(x2, y2);
        g.stroke();
        const angle = Math.atan2(y2 - y1, x2 - x1);
        g.beginPath();
        g.moveTo(x2, y2);
        g.lineTo(x2 - 6 * Math.cos(angle - 0.4), y2 - 6 * Math.sin(angle - 0.4));
        g.lineTo(x2 - 6 * Math.cos(angle + 0.4), y2 - 6 * Math.sin(angle + 0.4));
        g.closePath();
        g.fillStyle = '#222';
        g.fill();
      });
      g.fillStyle = '#666';
      g.fillText((from / 1e6).toFixed(3) + ' ms', label, 10 + threads.length * rowHeight + 14);
      g.fillText((to / 1e6).toFixed(3) + ' ms', width - 80, 10 + threads.length * rowHeight + 14);
    }

    const redraw = () => {
      const a = Number(fromInput.value) / 1000 * total;
      const b = Number(toInput.value) / 1000 * total;
      draw(Math.min(a, b), Math.max(a, b, Math.min(a, b) + 1));
    };
    fromInput.addEventListener('input', redraw);
    toInput.addEventListener('input', redraw);
    redraw();
    charts++;
  }

  [summary, statistics, straggler, whatIf, criticalPath, sync, timeline].forEach(draw => {
    try {
      draw();
    } catch (e) {
      errors.push(draw.name + ': ' + e.message);
      status.dataset.lastError = draw.name + ': ' + e.message;
    }
  });
  status.dataset.charts = String(charts);
  status.dataset.errors = String(errors.length);
  status.dataset.sections = sections.join(',');
})();
