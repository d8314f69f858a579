// The VIZ page's script: a sidebar of everything recorded, and views of graphs (laid out here, in layers),
// schedules (items, buffers, the memory plan's lifetimes) and kernels (opts, launch grid, source).
// Data: the JSON in <script id="tg-data"> (compiler/viz/viz_page.cc). Navigation: #pass=N&side=before,
// #graph=N, #schedule=N, #kernel=N, or <body data-tg-view="..."> when the URL has no hash.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('tg-data').textContent);
  var side = document.getElementById('side'), bar = document.getElementById('bar'), view = document.getElementById('view');
  var SVG = 'http://www.w3.org/2000/svg';

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svgEl(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }
  function bytes(n) {
    if (n >= 1 << 20) return (n / (1 << 20)).toFixed(1) + ' MiB';
    if (n >= 1 << 10) return (n / (1 << 10)).toFixed(1) + ' KiB';
    return n + ' B';
  }

  // ---- the entries, in the order they were recorded ----
  var entries = [];
  data.graphs.forEach(function (g, i) { entries.push({kind: 'graph', index: i, seq: g.seq, realize: g.realize}); });
  data.passes.forEach(function (p, i) { entries.push({kind: 'pass', index: i, seq: p.seq, realize: p.realize, group: p.group}); });
  data.schedules.forEach(function (s, i) { entries.push({kind: 'schedule', index: i, seq: s.seq, realize: s.realize}); });
  data.kernels.forEach(function (k, i) { entries.push({kind: 'kernel', index: i, seq: k.seq, realize: k.realize, group: k.name}); });
  entries.sort(function (a, b) { return a.seq - b.seq; });

  function entryTitle(e) {
    if (e.kind === 'graph') return ['tensor graph', data.graphs[e.index].graph.nodes.length + ' nodes'];
    if (e.kind === 'pass') {
      var p = data.passes[e.index];
      return [p.pass, p.rules_fired + ' rules, ' + p.before.nodes.length + '\u2192' + p.after.nodes.length];
    }
    if (e.kind === 'schedule') {
      var s = data.schedules[e.index];
      return ['schedule', s.items.length + ' items, ' + s.buffers.length + ' buffers'];
    }
    var k = data.kernels[e.index];
    return ['source', k.device + ' ' + (k.opts.length ? k.opts.length + ' opts' : 'no opts')];
  }

  function buildSidebar() {
    side.appendChild(el('h1', {}, 'tinygrad-cc VIZ'));
    if (!entries.length) side.appendChild(el('h2', {}, 'nothing recorded (was VIZ=1 set?)'));
    var realize = null, group = null;
    entries.forEach(function (e) {
      if (e.realize !== realize) {
        realize = e.realize;
        group = null;
        side.appendChild(el('h2', {}, realize ? 'realize ' + realize : 'outside a realize'));
      }
      var g = e.kind === 'pass' || e.kind === 'kernel' ? (e.group || '') : '';
      if (g !== group) {
        group = g;
        if (g) side.appendChild(el('h3', {}, g === 'schedule' ? 'scheduling' : 'kernel ' + g));
      }
      var t = entryTitle(e);
      var a = el('a', {href: '#' + e.kind + '=' + e.index});
      a.appendChild(document.createTextNode(t[0] + ' '));
      a.appendChild(el('small', {}, t[1]));
      e.link = a;
      side.appendChild(a);
    });
    if (data.dropped) side.appendChild(el('h2', {}, data.dropped + ' records past the caps left out'));
  }

  // ---- graph layout: layers by distance from the root, order by barycenters, then packed ----
  var COLORS = [
    [/^(BUFFER|DEFINE_GLOBAL|DEFINE_VAR|DEFINE_ACC|LOAD)$/, '#b9d4f5'],
    [/^(STORE|SINK|ASSIGN|COPY|END|CONTIGUOUS|KERNEL)$/, '#f5b9b9'],
    [/^(REDUCE|ALLREDUCE|MULACC)$/, '#f7d19e'],
    [/^(RESHAPE|PERMUTE|EXPAND|PAD|SHRINK|FLIP|MULTI|DETACH)$/, '#d7c3f0'],
    [/^CONST$/, '#e3e6ea'],
    [/^(RANGE|SPECIAL|INDEX|VECTORIZE|GEP|IF|ENDIF|BARRIER)$/, '#f3ec9c'],
  ];
  function colorOf(op) {
    for (var i = 0; i < COLORS.length; i++) if (COLORS[i][0].test(op)) return COLORS[i][1];
    return '#c3e8c9';
  }
  function labelOf(n) {
    var lines = [n[0]], second = n[1] + (n[3] ? ' ' + n[3] : '');
    lines.push(second);
    if (n[2]) lines.push(n[2].length > 36 ? n[2].slice(0, 35) + '\u2026' : n[2]);
    return lines;
  }

  function layout(nodes) {
    var n = nodes.length, level = new Array(n).fill(0), users = [];
    for (var i = 0; i < n; i++) users.push([]);
    for (i = n - 1; i >= 0; i--) nodes[i][4].forEach(function (s) {
      level[s] = Math.max(level[s], level[i] + 1);
      users[s].push(i);
    });
    var depth = Math.max.apply(null, level.concat([0])), layers = [];
    for (i = 0; i <= depth; i++) layers.push([]);
    for (i = 0; i < n; i++) layers[depth - level[i]].push(i);  // inputs on top, the root at the bottom
    var pos = new Array(n);
    function place() { layers.forEach(function (l) { l.forEach(function (v, j) { pos[v] = (j + 0.5) / l.length; }); }); }
    place();
    function mean(list, fallback) {
      if (!list.length) return fallback;
      var s = 0;
      list.forEach(function (v) { s += pos[v]; });
      return s / list.length;
    }
    for (var sweep = 0; sweep < 6; sweep++) {
      layers.forEach(function (l) {
        var key = {};
        l.forEach(function (v) { key[v] = mean(sweep % 2 ? nodes[v][4] : users[v], pos[v]); });
        l.sort(function (a, b) { return key[a] - key[b]; });
      });
      place();
    }
    var W = [], H = 16 * 3 + 8, GAP = 18, ROW = H + 46, x = new Array(n), y = new Array(n), width = 0;
    for (i = 0; i < n; i++) {
      var longest = 0;
      labelOf(nodes[i]).forEach(function (s) { longest = Math.max(longest, s.length); });
      W.push(Math.max(60, longest * 6.8 + 14));
    }
    layers.forEach(function (l) {
      var w = -GAP;
      l.forEach(function (v) { w += W[v] + GAP; });
      width = Math.max(width, w);
    });
    layers.forEach(function (l, row) {
      var w = -GAP;
      l.forEach(function (v) { w += W[v] + GAP; });
      var cx = (width - w) / 2;
      l.forEach(function (v) { x[v] = cx; y[v] = row * ROW; cx += W[v] + GAP; });
    });
    return {x: x, y: y, w: W, h: H, width: Math.max(width, 1), height: layers.length * ROW - 46};
  }

  function drawGraph(graph, showChanged) {
    var nodes = graph.nodes, L = layout(nodes);
    var svg = svgEl('svg', {'class': 'graph'}), world = svgEl('g');
    svg.appendChild(world);
    nodes.forEach(function (nd, i) {
      nd[4].forEach(function (s) {
        var x1 = L.x[s] + L.w[s] / 2, y1 = L.y[s] + L.h, x2 = L.x[i] + L.w[i] / 2, y2 = L.y[i], m = (y1 + y2) / 2;
        world.appendChild(svgEl('path', {'class': 'edge', d: 'M' + x1 + ',' + y1 + ' C' + x1 + ',' + m + ' ' + x2 + ',' + m + ' ' + x2 + ',' + y2}));
      });
    });
    nodes.forEach(function (nd, i) {
      var g = svgEl('g', {'class': 'node' + (showChanged && nd[5] ? ' changed' : ''), transform: 'translate(' + L.x[i] + ',' + L.y[i] + ')'});
      g.appendChild(svgEl('rect', {width: L.w[i], height: L.h, fill: colorOf(nd[0])}));
      labelOf(nd).forEach(function (line, j) {
        var t = svgEl('text', {x: 7, y: 16 + j * 16});
        t.textContent = line;
        if (j === 0) t.setAttribute('font-weight', 'bold');
        g.appendChild(t);
      });
      var tip = svgEl('title');
      tip.textContent = '#' + i + ' ' + nd[0] + ' ' + nd[1] + ' ' + nd[3] + '\n' + nd[2] + '\nsrc: ' + nd[4].join(', ');
      g.appendChild(tip);
      world.appendChild(g);
    });
    view.appendChild(svg);
    panZoom(svg, world, L);
    document.body.dataset.tgRendered = String(nodes.length);
  }

  // Fits the graph into the view, then wheel zooms about the cursor and dragging pans.
  function panZoom(svg, world, L) {
    var box = view.getBoundingClientRect(), pad = 20;
    // The whole graph when it fits at a readable size; else readable from the top, the rest a drag away.
    var fitWidth = (box.width - 2 * pad) / L.width, fitHeight = (box.height - 2 * pad) / Math.max(L.height, 1);
    var s = Math.max(Math.min(fitWidth, fitHeight, 1.4), Math.min(fitWidth, 0.7), 0.05);
    var tx = (box.width - L.width * s) / 2, ty = pad;
    function apply() { world.setAttribute('transform', 'translate(' + tx + ',' + ty + ') scale(' + s + ')'); }
    apply();
    svg.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var r = svg.getBoundingClientRect(), px = ev.clientX - r.left, py = ev.clientY - r.top;
      var f = ev.deltaY < 0 ? 1.15 : 1 / 1.15;
      tx = px - (px - tx) * f; ty = py - (py - ty) * f; s *= f;
      apply();
    }, {passive: false});
    var drag = null;
    svg.addEventListener('mousedown', function (ev) { drag = [ev.clientX - tx, ev.clientY - ty]; });
    window.addEventListener('mouseup', function () { drag = null; });
    window.addEventListener('mousemove', function (ev) {
      if (!drag) return;
      tx = ev.clientX - drag[0]; ty = ev.clientY - drag[1];
      apply();
    });
  }

  // ---- views ----
  function button(text, on, href) {
    var b = el('button', {'class': on ? 'on' : ''}, text);
    b.addEventListener('click', function () { location.hash = href; });
    return b;
  }
  function note(text) { return el('span', {'class': 'note'}, text); }
  function droppedNote(graph) { return graph.dropped ? ' (' + graph.dropped + ' nodes farthest from the root left out)' : ''; }

  function showGraph(i) {
    var g = data.graphs[i];
    bar.appendChild(el('b', {}, 'tensor graph of realize ' + g.realize));
    bar.appendChild(note(g.graph.nodes.length + ' nodes' + droppedNote(g.graph) + '; wheel zooms, drag pans'));
    drawGraph(g.graph, false);
  }

  function showPass(i, sideName) {
    var p = data.passes[i], after = sideName !== 'before', graph = after ? p.after : p.before;
    var changed = p.after.nodes.filter(function (n) { return n[5]; }).length;
    bar.appendChild(el('b', {}, p.pass + (p.group ? ' \u2014 ' + (p.group === 'schedule' ? 'scheduling' : p.group) : '')));
    bar.appendChild(button('before', !after, 'pass=' + i + '&side=before'));
    bar.appendChild(button('after', after, 'pass=' + i + '&side=after'));
    bar.appendChild(note(p.rules_fired + ' rules fired; ' + p.before.nodes.length + ' \u2192 ' + p.after.nodes.length +
                         ' nodes, ' + changed + ' new (outlined red)' + droppedNote(graph)));
    drawGraph(graph, after);
  }

  function table(head, rows) {
    var t = el('table'), tr = el('tr');
    head.forEach(function (h) { tr.appendChild(el('th', {}, h)); });
    t.appendChild(tr);
    rows.forEach(function (r) {
      var row = el('tr');
      r.forEach(function (c) { row.appendChild(el('td', {}, String(c))); });
      t.appendChild(row);
    });
    return t;
  }

  // One row per buffer, a bar from its first use to its last; buffers that share memory share a colour.
  function lifetimeChart(s) {
    var n = Math.max(s.items.length, 1), COL = Math.max(18, Math.min(60, 900 / n)), ROWH = 18, LEFT = 170;
    var svg = svgEl('svg', {width: LEFT + n * COL + 20, height: (s.buffers.length + 1) * ROWH + 30});
    s.items.forEach(function (it, j) {
      var t = svgEl('text', {x: LEFT + j * COL + 3, y: 14, 'font-size': 10});
      t.textContent = String(j);
      svg.appendChild(t);
    });
    s.buffers.forEach(function (b, r) {
      var y = 22 + r * ROWH, hue = (b.block * 67) % 360;
      var label = svgEl('text', {x: 4, y: y + 12, 'font-size': 11, 'font-family': 'monospace'});
      label.textContent = 'buf ' + b.id + ' ' + b.dtype + ' ' + bytes(b.bytes);
      svg.appendChild(label);
      svg.appendChild(svgEl('rect', {x: LEFT + b.first * COL + 1, y: y + 2, width: (b.last - b.first + 1) * COL - 2, height: ROWH - 4,
                                     fill: 'hsl(' + hue + ',60%,' + (b.shared ? '55%' : '75%') + ')', rx: 3}));
    });
    return svg;
  }

  function showSchedule(i) {
    var s = data.schedules[i], kernels = s.items.filter(function (it) { return it.kind === 'kernel'; }).length;
    var shared = s.buffers.filter(function (b) { return b.shared; }).length, total = 0;
    s.buffers.forEach(function (b) { total += b.bytes; });
    bar.appendChild(el('b', {}, 'schedule of realize ' + s.realize));
    bar.appendChild(note(kernels + ' kernels, ' + (s.items.length - kernels) + ' copies, ' + s.buffers.length + ' buffers (' +
                         bytes(total) + '), ' + shared + ' sharing memory'));
    var sec = el('section');
    sec.appendChild(el('h4', {}, 'items, in the order they run (buffer 0 of each is written)'));
    sec.appendChild(table(['#', 'kind', 'name', 'device', 'buffers'], s.items.map(function (it, j) {
      return [j, it.kind, it.name, it.device, it.buffers.map(function (b) { return 'buf ' + s.buffers[b].id; }).join(', ')];
    })));
    sec.appendChild(el('h4', {}, 'memory plan: lifetimes by item (a darker shade shares its memory block with another buffer)'));
    sec.appendChild(lifetimeChart(s));
    sec.appendChild(el('h4', {}, 'buffers'));
    sec.appendChild(table(['buffer', 'device', 'dtype', 'elements', 'bytes', 'first use', 'last use', 'memory block'],
      s.buffers.map(function (b) { return ['buf ' + b.id, b.device, b.dtype, b.numel, bytes(b.bytes), b.first, b.last, b.block + (b.shared ? ' (shared)' : '')]; })));
    view.appendChild(sec);
  }

  function showKernel(i) {
    var k = data.kernels[i];
    bar.appendChild(el('b', {}, 'kernel ' + k.name));
    bar.appendChild(note(k.device + ', ' + k.dialect + '; groups ' + k.num_groups.join('\u00d7') + ', group size ' + k.group_size.join('\u00d7')));
    var sec = el('section');
    sec.appendChild(el('h4', {}, 'opts, in the order applied'));
    sec.appendChild(k.opts.length ? table(['#', 'opt'], k.opts.map(function (o, j) { return [j, o]; }))
                                  : el('p', {style: 'margin:4px 14px'}, 'none (NOOPT, or the heuristic found nothing to do)'));
    sec.appendChild(el('h4', {}, 'generated source'));
    sec.appendChild(el('pre', {'class': 'source'}, k.source));
    view.appendChild(sec);
  }

  function parse(hash) {
    var out = {};
    hash.replace(/^#/, '').split('&').forEach(function (kv) {
      var p = kv.split('=');
      if (p[0]) out[p[0]] = p[1] === undefined ? '' : decodeURIComponent(p[1]);
    });
    return out;
  }

  function show(hash) {
    var q = parse(hash), kinds = ['pass', 'graph', 'schedule', 'kernel'], kind = null;
    kinds.forEach(function (k) { if (kind === null && q[k] !== undefined) kind = k; });
    var lists = {pass: data.passes, graph: data.graphs, schedule: data.schedules, kernel: data.kernels};
    var index = kind === null ? NaN : parseInt(q[kind], 10);
    if (kind === null || !(index >= 0 && index < lists[kind].length)) {
      if (!entries.length) return;
      kind = entries[0].kind; index = entries[0].index;
    }
    bar.textContent = '';
    view.textContent = '';
    entries.forEach(function (e) {
      var on = e.kind === kind && e.index === index;
      e.link.className = on ? 'on' : '';
      if (on && e.link.scrollIntoView) e.link.scrollIntoView({block: 'nearest'});
    });
    if (kind === 'graph') showGraph(index);
    else if (kind === 'pass') showPass(index, q.side);
    else if (kind === 'schedule') showSchedule(index);
    else showKernel(index);
  }

  buildSidebar();
  window.addEventListener('hashchange', function () { show(location.hash); });
  show(location.hash || document.body.dataset.tgView || '');
})();
