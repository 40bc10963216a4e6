// Draws a proofload page's charts with uPlot. Embedded in every report.html and in the live
// dashboard (src/report/html/page.cc); the page's data is the JSON in #proofload-data.
//
// A chart is data, never code: {id, title, note, x: {label, kind, log, values}, y: {label, log},
// stacked, points_only, series: [{label, values, color?, point_colors?}], x_bands, y_bands,
// marks, keys}. The C++ side builds every experiment's charts but one: a run's charts over time,
// which windowCharts below builds from the run's windows (result.json's windows[]), because the
// live dashboard must build the same charts from the windows it receives while the run goes.
// Each drawn chart's box says what it drew (data-series, data-points), for the browser tests.
(function () {
  'use strict';
  const palette = ['#1565c0', '#ef6c00', '#2e7d32', '#c62828', '#6a1b9a', '#00838f',
                   '#9e9d24', '#4e342e', '#ad1457', '#37474f'];
  const outcomeColors = {
    success: '#2e7d32', status_429: '#f9a825', status_503: '#ef6c00', other_4xx: '#8d6e63',
    other_5xx: '#c62828', timeout: '#6a1b9a', reset: '#ad1457', refused: '#4e342e',
    connect_error: '#37474f', tls_error: '#00838f', protocol_error: '#9e9d24',
    check_failed: '#d84315', stream_reset: '#5d4037', never_started: '#9e9e9e',
  };

  function percentileLabel(v) {
    const p = 100 * (1 - 1 / v);
    if (p <= 0) return '0%';
    const digits = Math.max(0, Math.ceil(-Math.log10(100 - p + 1e-12)));
    return p.toFixed(Math.min(digits, 6)) + '%';
  }

  function formatValue(v) {
    if (v == null || Number.isNaN(v)) return '–';
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(2);
    return (+v.toPrecision(4)).toLocaleString('en-US');
  }

  // Values a log scale cannot place (zero, negative) become gaps.
  function forScale(values, log) {
    return log ? values.map(v => (v != null && v > 0 ? v : null)) : values;
  }

  function stack(series) {
    const sums = series[0].values.map(() => 0);
    const stacked = series.map(s => {
      const values = s.values.map((v, i) => (sums[i] += v || 0));
      return Object.assign({}, s, {values: values, raw: s.values});
    });
    // The tallest first, so that each lower band is painted over it.
    return stacked.reverse();
  }

  function bandsHook(chart) {
    return u => {
      const ctx = u.ctx;
      ctx.save();
      for (const b of chart.x_bands || []) {
        const x0 = u.valToPos(b.from, 'x', true), x1 = u.valToPos(b.to, 'x', true);
        ctx.fillStyle = 'rgba(120,120,120,0.15)';
        ctx.fillRect(Math.min(x0, x1), u.bbox.top, Math.abs(x1 - x0), u.bbox.height);
        ctx.fillStyle = '#555';
        ctx.fillText(b.label, Math.min(x0, x1) + 4, u.bbox.top + 12);
      }
      for (const b of chart.y_bands || []) {
        const y0 = u.valToPos(b.from, 'y', true), y1 = u.valToPos(b.to, 'y', true);
        ctx.fillStyle = 'rgba(21,101,192,0.10)';
        ctx.fillRect(u.bbox.left, Math.min(y0, y1), u.bbox.width, Math.abs(y1 - y0));
        ctx.fillStyle = '#1565c0';
        ctx.fillText(b.label, u.bbox.left + 4, Math.min(y0, y1) - 3);
      }
      ctx.restore();
    };
  }

  function marksHook(chart, series) {
    return u => {
      const ctx = u.ctx;
      ctx.save();
      series.forEach((s, i) => {
        if (!s.point_colors) return;
        s.values.forEach((v, j) => {
          if (v == null) return;
          const x = u.valToPos(u.data[0][j], 'x', true), y = u.valToPos(v, 'y', true);
          ctx.beginPath();
          ctx.fillStyle = s.point_colors[j] || palette[i % palette.length];
          ctx.arc(x, y, 5 * devicePixelRatio, 0, 2 * Math.PI);
          ctx.fill();
        });
      });
      for (const m of chart.marks || []) {
        const x = u.valToPos(m.x, 'x', true);
        ctx.strokeStyle = '#c62828';
        ctx.setLineDash([5, 4]);
        ctx.beginPath();
        ctx.moveTo(x, u.bbox.top);
        ctx.lineTo(x, u.bbox.top + u.bbox.height);
        ctx.stroke();
        ctx.fillStyle = '#c62828';
        ctx.fillText(m.label, x + 4, u.bbox.top + 24);
      }
      ctx.restore();
    };
  }

  function options(chart, series, width) {
    const names = chart.x.labels || [];
    const xFormat = names.length ? (v => (Number.isInteger(v) ? names[v - 1] || '' : ''))
                  : chart.x.kind === 'percentile' ? percentileLabel : formatValue;
    const share = chart.y.kind === 'share';
    const yFormat = v => (v == null ? '' : share ? formatValue(100 * v) + '%' : formatValue(v));
    let xSplits;
    if (names.length) {
      xSplits = () => names.map((n, i) => i + 1);
    } else if (chart.x.kind === 'percentile') {
      // A tick at each power of ten of 1/(1-p): 0%, 90%, 99%, 99.9%, ...
      xSplits = (u, i, min, max) => {
        const ticks = [];
        for (let t = 1; t <= max; t *= 10) if (t >= min) ticks.push(t);
        return ticks;
      };
    }
    const yScale = chart.y.log ? {distr: 3} : {};
    // A share's axis starts at 0 and is not stretched to 100 (= 10,000%) when all are zero.
    if (share) yScale.range = (u, min, max) => [0, Math.max(max, 0.01) * 1.05];
    const xScale = chart.x.log ? {time: false, distr: 3} : {time: false};
    if (names.length) xScale.range = () => [0.5, names.length + 0.5];
    return {
      title: chart.title,
      width: width,
      height: 280,
      scales: {x: xScale, y: yScale},
      axes: [
        {label: chart.x.label, values: (u, vals) => vals.map(xFormat), splits: xSplits},
        {label: chart.y.label, size: 60, values: (u, vals) => vals.map(yFormat)},
      ],
      series: [{label: chart.x.label, value: (u, v) => xFormat(v)}].concat(series.map((s, i) => {
        const color = s.color || palette[i % palette.length];
        const one = {label: s.label, stroke: color, width: 1.5,
                     value: (u, v, si, idx) => {
                       const shown = s.raw ? s.raw[idx] : v;
                       return shown == null ? '–' : yFormat(shown);
                     }};
        if (chart.stacked) one.fill = color + '99';
        if (chart.points_only || s.points_only) one.paths = () => null;
        // A series with a colour per point: marksHook draws its points.
        if (chart.points_only || s.points_only || s.point_colors) {
          one.points = {show: !s.point_colors, size: 8, fill: color};
        }
        return one;
      })),
      hooks: {drawClear: [bandsHook(chart)], draw: [marksHook(chart, series)]},
    };
  }

  // Draws `chart` into `box` (replacing what was there); returns the uPlot instance.
  function draw(chart, box) {
    const series = chart.stacked ? stack(chart.series) : chart.series;
    const data = [chart.x.values].concat(series.map(s => forScale(s.values, chart.y.log)));
    box.textContent = '';
    const width = Math.max(400, Math.min(1100, (box.clientWidth || 900)));
    const plot = new uPlot(options(chart, series, width), data, box);
    if (chart.note) {
      const note = document.createElement('p');
      note.className = 'note';
      note.textContent = chart.note;
      box.appendChild(note);
    }
    if ((chart.keys || []).length) {
      const keys = document.createElement('p');
      keys.className = 'keys';
      for (const k of chart.keys) {
        const key = document.createElement('span');
        key.innerHTML = '<i></i>';
        key.firstChild.style.background = k.color;
        key.appendChild(document.createTextNode(k.label));
        keys.appendChild(key);
      }
      box.appendChild(keys);
    }
    box.dataset.series = String(series.length);
    box.dataset.points = String(chart.x.values.length);
    return plot;
  }

  function figure(w, source, name) {
    const o = w.observed && w.observed[source];
    return o && typeof o[name] === 'number' ? o[name] : null;
  }

  function observedCharts(windows, x, warmup) {
    const sources = [];
    for (const w of windows) for (const s of Object.keys(w.observed || {})) {
      if (!sources.includes(s)) sources.push(s);
    }
    const groups = [
      {id: 'cpu', title: 'CPU (cores), the generator as "self"', y: 'cores',
       match: n => n === 'cpu_cores', scale: 1},
      {id: 'throttled', title: 'Throttled share of periods (cgroup)', y: 'share', kind: 'share',
       match: n => n.includes('throttled') && n.includes('share'), scale: 1},
      {id: 'memory', title: 'Memory (MiB)', y: 'MiB',
       match: n => n === 'memory_bytes' || n === 'rss_bytes', scale: 1 / 1048576},
    ];
    const charts = [];
    for (const g of groups) {
      const series = [];
      for (const s of sources) {
        const names = [];
        for (const w of windows) for (const n of Object.keys((w.observed || {})[s] || {})) {
          if (g.match(n) && !names.includes(n)) names.push(n);
        }
        for (const n of names) {
          series.push({label: names.length > 1 ? s + ' ' + n : s,
                       values: windows.map(w => {
                         const v = figure(w, s, n);
                         return v == null ? null : v * g.scale;
                       })});
        }
      }
      if (series.length) {
        charts.push({id: 'run-observed-' + g.id, title: g.title, x: x,
                     y: {label: g.y, kind: g.kind || 'number'},
                     series: series, x_bands: warmup});
      }
    }
    return charts;
  }

  // A run's charts over time, from its windows (result.json's windows[], or the dashboard's).
  function windowCharts(windows) {
    const x = {label: 's since the start', kind: 'seconds', values: windows.map(w => w.start_s)};
    const span = (part, label) => {
      const ws = windows.filter(part);
      return ws.length ? [{from: Math.min(...ws.map(w => w.start_s)),
                           to: Math.max(...ws.map(w => w.start_s + w.duration_s)), label: label}]
                       : [];
    };
    // The warm-up, and the drain after the schedule's end (a short window: its rates are noisy).
    const warmup = span(w => w.warmup, 'warm-up').concat(span(w => w.drain, 'drain'));
    const lat = k => windows.map(w => (w.latency_ms ? w.latency_ms[k] : null));
    const charts = [
      {id: 'run-throughput', title: 'Throughput: responses per second', x: x,
       y: {label: 'per s'}, x_bands: warmup,
       series: [{label: 'achieved', values: windows.map(w => w.throughput_rps)},
                {label: 'intended', values: windows.map(w => w.intended / (w.duration_s || 1))}]},
      {id: 'run-latency', title: 'Latency percentiles per window (ms, log scale)', x: x,
       y: {label: 'ms', log: true}, x_bands: warmup,
       series: [{label: 'p50', values: lat('p50')}, {label: 'p90', values: lat('p90')},
                {label: 'p99', values: lat('p99')}, {label: 'max', values: lat('max')}]},
    ];
    const names = [];
    for (const w of windows) for (const n of Object.keys(w.outcomes || {})) {
      if (!names.includes(n)) names.push(n);
    }
    if (!names.includes('never_started') && windows.some(w => w.never_started)) {
      names.push('never_started');
    }
    charts.push({
      id: 'run-outcomes', title: 'Outcomes per window (stacked)', x: x, y: {label: 'requests'},
      stacked: true, x_bands: warmup,
      series: names.map(n => ({label: n, color: outcomeColors[n],
                               values: windows.map(w => (w.outcomes || {})[n] || 0)}))});
    charts.push({
      id: 'run-never-started', title: 'Never started: share of the arrivals offered', x: x,
      y: {label: 'share', kind: 'share'}, x_bands: warmup,
      series: [{label: 'never started',
                values: windows.map(w => (w.intended ? w.never_started / w.intended : 0))}]});
    if (windows.some(w => w.streams)) {
      const s = (part, k) => windows.map(w => (w.streams && w.streams[part] ?
                                               w.streams[part][k] : null));
      charts.push({
        id: 'run-streams', title: 'Streams: first token p95 and inter-token p99 (ms)', x: x,
        y: {label: 'ms', log: true}, x_bands: warmup,
        series: [{label: 'first token p95', values: s('ttfce_ms', 'p95')},
                 {label: 'first byte p95', values: s('ttfb_ms', 'p95')},
                 {label: 'inter-token p99', values: s('inter_event_ms', 'p99')}]});
    }
    return charts.concat(observedCharts(windows, x, warmup));
  }

  function box(parent, id) {
    let el = document.getElementById('chart-' + id);
    if (!el) {
      el = document.createElement('div');
      el.className = 'chart';
      el.id = 'chart-' + id;
      parent.appendChild(el);
    }
    return el;
  }

  function drawAll(charts, parent) {
    for (const chart of charts) {
      try {
        draw(chart, box(parent, chart.id));
      } catch (e) {
        console.error('chart ' + chart.id + ': ' + e);
      }
    }
  }

  const data = JSON.parse(document.getElementById('proofload-data').textContent);
  drawAll(data.charts, document.querySelector('main'));
  if (data.run_windows) {
    drawAll(windowCharts(data.run_windows), document.getElementById('run-windows'));
  }
  if (data.kind === 'live') {
    // A ladder's levels (a comparison's cells, ...) are runs of their own, each from 0 s: the
    // charts show the step in progress, and start again when the step's label changes.
    let windows = [], label = null, received = 0;
    const parent = document.getElementById('live-charts');
    const status = document.getElementById('live-status');
    const events = new EventSource('/events');
    let pending = false;
    events.addEventListener('window', e => {
      const message = JSON.parse(e.data);
      if (message.label !== label) {
        windows = [];
        label = message.label;
      }
      windows.push(message.window);
      received += 1;
      document.getElementById('live-windows').textContent = String(received);
      document.getElementById('live-rps').textContent = formatValue(message.window.throughput_rps);
      status.textContent = (label ? label + ': ' : '') + 'running';
      if (!pending) {  // one redraw per frame, however fast windows arrive (a replay)
        pending = true;
        requestAnimationFrame(() => { pending = false; drawAll(windowCharts(windows), parent); });
      }
    });
    events.addEventListener('end', () => { status.textContent = 'finished'; events.close(); });
  }
})();
