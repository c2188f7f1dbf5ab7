// The smaller charts: activations held over time (canvas, following the
// Gantt's window), the idle split per rank, the comparison's bars, the
// delay profiles (SVG) and the replay's loss curve (canvas, drawn as the
// records arrive).
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
function rankColour(r, n) { return `hsl(${Math.round(360 * r / Math.max(1, n))}, 60%, 45%)`; }

// activationSteps computes, per rank, the activations held after each
// compute event, by the rule of the simulator's peak count (pipelab's
// sim.PeakActivations): a forward adds one, a full backward B or a W frees
// one, an I frees one unless the table also has the W of its stage and
// microbatch (the split backward then frees at its W), and an OVERLAP_F_B
// keeps one and frees one. share converts to M_B (a chunk of V holds 1/V).
function activationSteps(tl, share) {
  const c = tl.compute, n = c.rank.length;
  const split = new Set();
  for (let i = 0; i < n; i++) if (c.kind[i] === "W") split.add(c.stage[i] + ":" + c.microbatch[i]);
  const byRank = Array.from({ length: tl.ranks }, () => []);
  for (let i = 0; i < n; i++) byRank[c.rank[i]].push(i);
  const out = [];
  for (let r = 0; r < tl.ranks; r++) {
    const evs = byRank[r].sort((a, b) => c.end[a] - c.end[b] || a - b);
    const times = new Float64Array(evs.length + 1), held = new Float64Array(evs.length + 1);
    let h = 0, peak = 0;
    evs.forEach((i, k) => {
      switch (c.kind[i]) {
        case "F": h++; break;
        case "B": case "W": h--; break;
        case "I": if (!split.has(c.stage[i] + ":" + c.microbatch[i])) h--; break;
      }
      peak = Math.max(peak, h);
      times[k + 1] = c.end[i];
      held[k + 1] = h * share;
    });
    out.push({ times, held, peak: peak * share });
  }
  return out;
}

class MemoryChart {
  constructor(container) {
    this.el = container;
    this.el.innerHTML = "";
    this.canvas = document.createElement("canvas");
    this.el.appendChild(this.canvas);
    this.legend = document.createElement("div");
    this.legend.className = "muted";
    this.el.appendChild(this.legend);
    this.highlight = -1;
  }
  setData(steps, span, cliPeaks) {
    this.steps = steps;
    this.span = span;
    this.t0 = 0; this.t1 = span; this.cache = {};
    this.ymax = Math.max(1, ...steps.map(s => s.peak));
    const pagePeak = Math.max(...steps.map(s => s.peak));
    const cliPeak = Math.max(...cliPeaks);
    this.legend.innerHTML = `highest peak: <b id="mem-peak-page">${fmtG(pagePeak, 4)}</b> M_B from the timeline; ` +
      `<span id="mem-peak-cli">${fmtG(cliPeak, 4)}</span> M_B in simulate's table`;
    this.resize();
  }
  resize() {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(260, this.el.clientWidth - 2), h = 200;
    this.canvas.width = w * dpr; this.canvas.height = h * dpr;
    this.canvas.style.width = w + "px"; this.canvas.style.height = h + "px";
    this.canvas.getContext("2d").setTransform(dpr, 0, 0, dpr, 0, 0);
    this.w = w; this.h = h; this.cache = {};
    this.draw();
  }
  setWindow(t0, t1) { this.t0 = t0; this.t1 = t1; this.cache = {}; this.draw(); }
  // setHighlight picks out rank r (-1: none) at the next frame, so that a
  // hover in the Gantt does not wait for this chart.
  setHighlight(r) {
    if (r === this.highlight) return;
    this.highlight = r;
    if (!this.pending) {
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.draw(); });
    }
  }
  // draw puts the ranks' lines, drawn once per window into a cached canvas
  // (coloured, or faded when one rank is picked out), and the picked rank.
  draw() {
    if (!this.steps) return;
    this.cache ||= {};
    const faded = this.highlight >= 0;
    const key = faded ? "faded" : "colour";
    if (!this.cache[key]) {
      const c = document.createElement("canvas");
      c.width = this.canvas.width; c.height = this.canvas.height;
      const cx = c.getContext("2d");
      cx.setTransform(this.canvas.width / this.w, 0, 0, this.canvas.height / this.h, 0, 0);
      this.drawAxes(cx);
      this.steps.forEach((s, r) => this.drawLine(cx, s, faded ? "rgba(150,160,175,0.35)" : rankColour(r, this.steps.length), 1));
      this.cache[key] = c;
    }
    const ctx = this.canvas.getContext("2d");
    ctx.save(); ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.drawImage(this.cache[key], 0, 0);
    ctx.restore();
    if (faded) this.drawLine(ctx, this.steps[this.highlight], rankColour(this.highlight, this.steps.length), 2.5);
    ctx.font = "10px system-ui, sans-serif"; ctx.fillStyle = "#556"; ctx.textAlign = "left"; ctx.textBaseline = "middle";
    ctx.fillText(faded ? `rank ${this.highlight}: peak ${fmtG(this.steps[this.highlight].peak, 4)} M_B` : "all ranks", 40, this.h - 6);
  }
  frame() { const L = 36, B = 18; return { L, W: this.w - L - 6, H: this.h - B - 6 }; }
  drawAxes(ctx) {
    const { L, W, H } = this.frame();
    ctx.font = "10px system-ui, sans-serif";
    ctx.fillStyle = "#556"; ctx.textAlign = "right"; ctx.textBaseline = "middle";
    const ystep = niceStep(this.ymax / 4);
    for (let v = 0; v <= this.ymax + 1e-9; v += ystep) {
      const y = 6 + H - v / this.ymax * H;
      ctx.fillText(fmtG(v, 3), L - 4, y);
      ctx.fillStyle = "#eef"; ctx.fillRect(L, y, W, 1); ctx.fillStyle = "#556";
    }
  }
  drawLine(ctx, s, colour, width) {
    const { L, W, H } = this.frame();
    const sx = t => L + (t - this.t0) / (this.t1 - this.t0) * W;
    const sy = v => 6 + H - v / this.ymax * H;
    ctx.save();
    ctx.beginPath(); ctx.rect(L, 0, W, this.h); ctx.clip();
    ctx.strokeStyle = colour; ctx.lineWidth = width;
    ctx.beginPath();
    let lastX = -Infinity;
    ctx.moveTo(sx(0), sy(0));
    for (let k = 1; k < s.times.length; k++) {
      const x = sx(s.times[k]);
      if (x < L && k + 1 < s.times.length && sx(s.times[k + 1]) < L) continue;
      if (x - lastX < 0.5 && k + 1 < s.times.length) continue; // sub-pixel steps: keep the last of the column
      ctx.lineTo(x, sy(s.held[k - 1]));
      ctx.lineTo(x, sy(s.held[k]));
      lastX = x;
      if (x > L + W) break;
    }
    ctx.stroke();
    ctx.restore();
  }
}

// splitChart draws per rank the busy time, the bubble and the comm wait as
// one bar of the makespan (simulate's per_rank).
function splitChart(el, rep) {
  const ranks = rep.per_rank, n = ranks.length;
  const rowH = Math.max(3, Math.min(16, Math.floor(200 / n))), L = 50, W = Math.max(240, el.clientWidth - L - 16);
  const H = rowH * n + 30;
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("width", L + W + 10); svg.setAttribute("height", H);
  const span = rep.makespan || 1;
  const parts = [["busy", "#8fa9c8"], ["bubble", "#e8b04a"], ["comm_wait", "#d0584a"]];
  let html = "";
  ranks.forEach((r, i) => {
    let x = L;
    const y = i * rowH;
    if (rowH >= 11 || i % Math.ceil(11 / rowH) === 0) html += `<text x="${L - 4}" y="${y + rowH / 2 + 3}" text-anchor="end" font-size="10">rank ${r.rank}</text>`;
    for (const [key, colour] of parts) {
      const w = r[key] / span * W;
      if (w > 0) html += `<rect x="${x}" y="${y}" width="${w}" height="${Math.max(1, rowH - 1)}" fill="${colour}"><title>rank ${r.rank} ${key.replace("_", " ")}: ${fmtG(r[key], 6)}</title></rect>`;
      x += w;
    }
  });
  const tot = k => ranks.reduce((a, r) => a + r[k], 0);
  html += `<text x="${L}" y="${H - 8}" font-size="11">` + parts.map(([k, c]) => `<tspan fill="${c}">■</tspan> ${k.replace("_", " ")} ${fmtG(tot(k), 6)}  `).join("") + "(sums over ranks)</text>";
  svg.innerHTML = html;
  el.innerHTML = "";
  el.appendChild(svg);
}

// barsChart draws groups of bars: one group per label, one bar per series,
// each series scaled to its own largest value (levels differ in unit)
// unless shared.
function barsChart(el, labels, series, shared) {
  const all = series.flatMap(s => s.values).filter(v => v !== null && v !== undefined);
  const gw = Math.max(70, Math.floor((Math.max(500, el.clientWidth) - 60) / labels.length));
  const H = 190, base = 150;
  let html = "";
  series.forEach((s, j) => {
    const top = shared ? Math.max(...all, 1e-300) : Math.max(...s.values.filter(v => v !== null && v !== undefined), 1e-300);
    s.values.forEach((v, i) => {
      const x = 40 + i * gw + 6 + j * ((gw - 16) / series.length);
      const bw = (gw - 16) / series.length - 3;
      if (v === null || v === undefined) {
        html += `<text x="${x + bw / 2}" y="${base - 4}" font-size="9" text-anchor="middle">n/a</text>`;
        return;
      }
      const h = v / top * (base - 20);
      html += `<rect x="${x}" y="${base - h}" width="${bw}" height="${h}" fill="${s.colour}"><title>${esc(labels[i])} ${s.name}: ${fmtG(v, 6)}</title></rect>`;
      html += `<text x="${x + bw / 2}" y="${base - h - 3}" font-size="9" text-anchor="middle">${fmtG(v, 4)}</text>`;
    });
  });
  labels.forEach((l, i) => { html += `<text x="${40 + i * gw + gw / 2}" y="${base + 14}" font-size="10" text-anchor="middle">${esc(l)}</text>`; });
  html += `<text x="40" y="${H - 6}" font-size="11">` + series.map(s => `<tspan fill="${s.colour}">■</tspan> ${s.name}  `).join("") + (shared ? "" : "(each level scaled to its own largest)") + "</text>";
  el.innerHTML = `<svg width="${40 + gw * labels.length + 10}" height="${H}" xmlns="${SVGNS}">${html}</svg>`;
}

// LossChart is the replay's loss against simulated time, log scale,
// redrawn as records come; the validation loss beside it when the replay
// reports one (objectives with a held-out set). It saves as PNG or SVG.
class LossChart {
  constructor(el) {
    this.el = el; el.innerHTML = "";
    const tools = document.createElement("div");
    tools.className = "chart-tools";
    tools.innerHTML = '<span class="legend" id="loss-legend"></span><button data-export="png">PNG</button><button data-export="svg">SVG</button>';
    tools.addEventListener("click", e => {
      if (e.target.dataset.export === "png") saveCanvas(this.canvas, "loss.png");
      if (e.target.dataset.export === "svg") saveText(this.svg(), "loss.svg", "image/svg+xml");
    });
    el.appendChild(tools);
    this.legend = tools.firstChild;
    this.canvas = document.createElement("canvas");
    el.appendChild(this.canvas);
    this.points = [];
    const dpr = window.devicePixelRatio || 1;
    this.w = Math.max(320, el.clientWidth - 2); this.h = 240;
    this.canvas.width = this.w * dpr; this.canvas.height = this.h * dpr;
    this.canvas.style.width = this.w + "px"; this.canvas.style.height = this.h + "px";
    this.canvas.getContext("2d").setTransform(dpr, 0, 0, dpr, 0, 0);
    this.draw();
  }
  add(p) { if (p.loss !== null && p.loss > 0) this.points.push(p); this.draw(); }

  // figure is what both renderings draw: the axes' ticks and labels and
  // the curves as point lists, in pixels.
  figure() {
    const L = 56, B = 34, W = this.w - L - 10, H = this.h - B - 8;
    const f = { texts: [], grid: [], ticks: [], curves: [] };
    if (!this.points.length) { f.texts.push({ x: L, y: 20, s: "no records yet", align: "start" }); return f; }
    const valid = this.points.filter(p => p.validation_loss !== null && p.validation_loss > 0);
    const tmax = Math.max(1e-300, ...this.points.map(p => p.sim_time));
    const ls = this.points.map(p => Math.log10(p.loss)).concat(valid.map(p => Math.log10(p.validation_loss)));
    let lo = Math.floor(Math.min(...ls)), hi = Math.ceil(Math.max(...ls));
    if (hi === lo) hi = lo + 1;
    const sx = t => L + t / tmax * W, sy = l => 8 + H - (l - lo) / (hi - lo) * H;
    for (let e = lo; e <= hi; e++) { f.texts.push({ x: L - 4, y: sy(e) + 3, s: "1e" + e, align: "end" }); f.grid.push({ x: L, y: sy(e), w: W, h: 1 }); }
    const step = niceStep(tmax / 6);
    for (let t = 0; t <= tmax * (1 + 1e-9); t += step) {
      f.ticks.push({ x: sx(t), y: 8 + H, w: 1, h: 4 });
      f.texts.push({ x: sx(t), y: 8 + H + 14, s: fmtG(t, 4), align: "middle", tick: true });
    }
    f.texts.push({ x: L + W / 2, y: this.h - 4, s: "simulated time", align: "middle" });
    f.curves.push({ name: "training loss", colour: "#2d6cdf", pts: this.points.map(p => [sx(p.sim_time), sy(Math.log10(p.loss))]) });
    if (valid.length) f.curves.push({ name: "validation loss", colour: "#d0584a", pts: valid.map(p => [sx(p.sim_time), sy(Math.log10(p.validation_loss))]) });
    return f;
  }

  draw() {
    const f = this.figure(), ctx = this.canvas.getContext("2d");
    ctx.clearRect(0, 0, this.w, this.h);
    ctx.font = "10px system-ui, sans-serif";
    ctx.fillStyle = "#eef"; for (const g of f.grid) ctx.fillRect(g.x, g.y, g.w, g.h);
    ctx.fillStyle = "#556"; for (const g of f.ticks) ctx.fillRect(g.x, g.y, g.w, g.h);
    ctx.textBaseline = "alphabetic";
    for (const t of f.texts) { ctx.textAlign = { start: "left", middle: "center", end: "right" }[t.align]; ctx.fillText(t.s, t.x, t.y); }
    for (const c of f.curves) {
      ctx.strokeStyle = c.colour; ctx.lineWidth = 1.5; ctx.beginPath();
      c.pts.forEach(([x, y], i) => { if (i) ctx.lineTo(x, y); else ctx.moveTo(x, y); });
      ctx.stroke();
    }
    this.ticks = f.ticks.length;
    this.legend.innerHTML = f.curves.map(c => `<span data-curve="${c.name}"><i style="background:${c.colour}"></i>${c.name}</span>`).join("");
  }

  svg() {
    const f = this.figure();
    let b = f.grid.map(g => `<rect x="${g.x}" y="${g.y.toFixed(2)}" width="${g.w}" height="${g.h}" fill="#eef"/>`).join("");
    b += f.ticks.map(g => `<rect x="${g.x.toFixed(2)}" y="${g.y}" width="${g.w}" height="${g.h}" fill="#556"/>`).join("");
    b += f.texts.map(t => `<text x="${t.x.toFixed(2)}" y="${t.y.toFixed(2)}" text-anchor="${t.align}">${esc(t.s)}</text>`).join("");
    b += f.curves.map(c => `<polyline fill="none" stroke="${c.colour}" stroke-width="1.5" points="${c.pts.map(([x, y]) => x.toFixed(2) + "," + y.toFixed(2)).join(" ")}"><title>${c.name}</title></polyline>`).join("");
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${this.w}" height="${this.h}" font-family="sans-serif" font-size="10" fill="#556">${b}</svg>\n`;
  }
}
