// profile_timeline.cc: the page is a canvas drawn by its own script from the events embedded in it.
#include "tools/profile_timeline.h"

#include "tools/html_text.h"

namespace tg::tools {
namespace {

// Everything but the data and the title. Rows: one per (lane, thread), nested events stacked below their
// parent. Colours by category, as docs/profile.md lists them.
constexpr char kHead[] = R"(<!doctype html>
<html><head><meta charset="utf-8"><title>)";

constexpr char kStyle[] = R"(</title>
<style>
body { font: 13px sans-serif; margin: 10px; background: #fff; color: #222; }
#legend span { display: inline-block; margin-right: 14px; }
#legend i { display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: -2px; }
#tip { position: absolute; display: none; background: #fffbe6; border: 1px solid #aaa; padding: 6px;
       font: 12px monospace; white-space: pre; pointer-events: none; max-width: 600px; }
canvas { display: block; margin-top: 8px; cursor: crosshair; }
.hint { color: #666; }
</style></head><body>
<h3 id="title"></h3>
<div id="legend"></div>
<div class="hint">wheel: zoom at the pointer &middot; drag: zoom to the range &middot; double-click: whole trace
&middot; hover: the event's arguments</div>
<canvas id="timeline"></canvas><div id="tip"></div>
<script type="application/json" id="trace">)";

constexpr char kScript[] = R"(</script>
<script>
(function () {
  const colors = {realize: '#5d6d7e', schedule: '#4a7fe0', codegen: '#9b59b6', compile: '#e67e22', kernel: '#27ae60',
                  copy: '#d9412b', alloc: '#7f8c8d', jit: '#e0b000', wait: '#c8c8c8'};
  const other = '#34495e';
  const raw = JSON.parse(document.getElementById('trace').textContent);
  const events = Array.isArray(raw) ? raw : (raw.traceEvents || []);
  const laneNames = {}, threadNames = {};
  for (const e of events) {
    if (e.ph !== 'M' || !e.args) continue;
    if (e.name === 'process_name') laneNames[e.pid] = e.args.name;
    if (e.name === 'thread_name') threadNames[e.pid + '/' + e.tid] = e.args.name;
  }
  const spans = events.filter(e => e.ph === 'X' && typeof e.ts === 'number' && typeof e.dur === 'number');
  const rowsByKey = {};
  for (const e of spans) {
    const key = e.pid + '/' + e.tid;
    if (!rowsByKey[key]) {
      const lane = laneNames[e.pid] !== undefined ? laneNames[e.pid] : 'lane ' + e.pid;
      const thread = threadNames[key] !== undefined ? threadNames[key] : 'thread ' + e.tid;
      rowsByKey[key] = {pid: e.pid, tid: e.tid, label: lane + ' / ' + thread, spans: [], levels: 1};
    }
    rowsByKey[key].spans.push(e);
  }
  const rows = Object.values(rowsByKey).sort((a, b) => a.pid - b.pid || a.tid - b.tid);
  const barH = 16, rowPad = 6, labelW = 190, axisH = 24;
  let y = axisH;
  for (const row of rows) {
    row.spans.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const open = [];
    for (const e of row.spans) {
      while (open.length && open[open.length - 1] <= e.ts) open.pop();
      e.level = open.length;
      open.push(e.ts + e.dur);
      row.levels = Math.max(row.levels, e.level + 1);
    }
    row.y = y;
    row.h = row.levels * barH + rowPad;
    y += row.h;
  }
  let first = Infinity, last = -Infinity;
  for (const e of spans) { first = Math.min(first, e.ts); last = Math.max(last, e.ts + e.dur); }
  if (!spans.length) { first = 0; last = 1; }
  if (last <= first) last = first + 1;
  let t0 = first, t1 = last;

  const title = document.getElementById('title');
  title.textContent = document.title + ': ' + spans.length + ' events, ' + fmt(last - first);
  const legend = document.getElementById('legend');
  for (const [cat, color] of Object.entries(colors)) {
    const item = document.createElement('span');
    const swatch = document.createElement('i');
    swatch.style.background = color;
    item.appendChild(swatch);
    item.appendChild(document.createTextNode(cat));
    legend.appendChild(item);
  }

  const canvas = document.getElementById('timeline');
  const ctx = canvas.getContext('2d');
  const tip = document.getElementById('tip');
  let width = 0, height = Math.max(y, axisH + 40), drag = null;

  function fmt(us) {
    if (us >= 1e6) return (us / 1e6).toFixed(2) + ' s';
    if (us >= 1e3) return (us / 1e3).toFixed(2) + ' ms';
    return us.toFixed(us < 10 ? 2 : 1) + ' us';
  }
  function xOf(t) { return labelW + (t - t0) / (t1 - t0) * (width - labelW); }
  function tOf(x) { return t0 + (x - labelW) / (width - labelW) * (t1 - t0); }

  function resize() {
    width = Math.max(400, document.documentElement.clientWidth - 20);
    const scale = window.devicePixelRatio || 1;
    canvas.width = width * scale;
    canvas.height = height * scale;
    canvas.style.width = width + 'px';
    canvas.style.height = height + 'px';
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
  }

  function drawAxis() {
    const span = t1 - t0, target = span / 8;
    const step = Math.pow(10, Math.floor(Math.log10(target)));
    const nice = [1, 2, 5, 10].map(m => m * step).find(s => s >= target) || step;
    ctx.fillStyle = '#555';
    ctx.strokeStyle = '#ddd';
    ctx.font = '11px sans-serif';
    for (let t = first + Math.ceil((t0 - first) / nice) * nice; t <= t1; t += nice) {
      const x = xOf(t);
      ctx.beginPath(); ctx.moveTo(x, axisH - 4); ctx.lineTo(x, height); ctx.stroke();
      ctx.fillText(fmt(t - first), x + 2, axisH - 8);
    }
  }

  function draw() {
    ctx.clearRect(0, 0, width, height);
    rows.forEach((row, i) => {
      ctx.fillStyle = i % 2 ? '#f4f6f8' : '#eaeef2';
      ctx.fillRect(0, row.y, width, row.h);
    });
    drawAxis();
    let drawn = 0;
    ctx.font = '11px sans-serif';
    for (const row of rows) {
      for (const e of row.spans) {
        const x0 = Math.max(labelW, xOf(e.ts)), x1 = Math.min(width, xOf(e.ts + e.dur));
        if (x1 < labelW || x0 > width) continue;
        const w = Math.max(1, x1 - x0), top = row.y + rowPad / 2 + e.level * barH;
        ctx.fillStyle = colors[e.cat] || other;
        ctx.fillRect(x0, top, w, barH - 2);
        if (w > 30) {
          ctx.save();
          ctx.beginPath(); ctx.rect(x0, top, w, barH - 2); ctx.clip();
          ctx.fillStyle = '#fff';
          ctx.fillText(e.name, x0 + 3, top + barH - 5);
          ctx.restore();
        }
        ++drawn;
      }
    }
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, axisH, labelW, height);
    ctx.fillStyle = '#222';
    ctx.font = '12px sans-serif';
    for (const row of rows) ctx.fillText(row.label, 4, row.y + 15, labelW - 8);
    if (drag && drag.x1 !== undefined) {
      ctx.fillStyle = 'rgba(74,127,224,0.2)';
      ctx.fillRect(Math.min(drag.x0, drag.x1), axisH, Math.abs(drag.x1 - drag.x0), height);
    }
    return drawn;
  }

  function hit(x, y) {
    if (x < labelW) return null;
    const t = tOf(x), slack = (t1 - t0) / (width - labelW);
    const row = rows.find(r => y >= r.y && y < r.y + r.h);
    if (!row) return null;
    const level = Math.floor((y - row.y - rowPad / 2) / barH);
    return row.spans.find(e => e.level === level && e.ts - slack <= t && t <= e.ts + e.dur + slack) || null;
  }

  function describe(e) {
    let text = e.name + '\n' + (e.cat || '') + '  ' + fmt(e.dur) + '  at ' + fmt(e.ts - first);
    for (const [k, v] of Object.entries(e.args || {})) text += '\n' + k + ': ' + v;
    return text;
  }

  canvas.addEventListener('wheel', ev => {
    ev.preventDefault();
    const t = tOf(ev.offsetX), factor = Math.exp(ev.deltaY * 0.002);
    const span = Math.max(1e-3, (t1 - t0) * factor);
    t0 = t - (t - t0) / (t1 - t0) * span;
    t1 = t0 + span;
    draw();
  }, {passive: false});
  canvas.addEventListener('mousedown', ev => { drag = {x0: ev.offsetX}; });
  canvas.addEventListener('mousemove', ev => {
    if (drag) { drag.x1 = ev.offsetX; draw(); return; }
    const e = hit(ev.offsetX, ev.offsetY);
    tip.style.display = e ? 'block' : 'none';
    if (!e) return;
    tip.textContent = describe(e);
    tip.style.left = (ev.pageX + 12) + 'px';
    tip.style.top = (ev.pageY + 12) + 'px';
  });
  window.addEventListener('mouseup', () => {
    if (drag && drag.x1 !== undefined && Math.abs(drag.x1 - drag.x0) > 4) {
      const a = tOf(Math.max(labelW, Math.min(drag.x0, drag.x1)));
      const b = tOf(Math.max(drag.x0, drag.x1));
      t0 = a; t1 = Math.max(b, a + 1e-3);
    }
    drag = null;
    draw();
  });
  canvas.addEventListener('dblclick', () => { t0 = first; t1 = last; draw(); });
  window.addEventListener('resize', () => { resize(); draw(); });

  resize();
  document.body.dataset.tgRendered = String(draw());
})();
</script>
</body></html>
)";

}  // namespace

std::string TimelineHtml(const nlohmann::json& trace, const std::string& title) {
  return std::string(kHead) + HtmlEscaped(title) + kStyle + ScriptSafeJson(trace.dump()) + kScript;
}

}  // namespace tg::tools
