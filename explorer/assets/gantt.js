// The Gantt chart: one row per rank, one bar per compute event, drawn on a
// canvas so that a 64-rank, 1024-microbatch schedule (131072 bars and
// more) draws in milliseconds. Each rank's events are kept sorted by start
// in typed arrays; a frame visits only the events in the visible window and
// draws at most one bar per pixel column and colour, and a hover finds its
// event by binary search.
"use strict";

const KIND_COLOURS = { F: "#3b7dd8", B: "#2e9e5b", I: "#6cc58f", W: "#e0a030", OVERLAP_F_B: "#8e5bd0" };
const KIND_NAMES = ["F", "B", "I", "W", "OVERLAP_F_B"];
const KIND_LABELS = { F: "forward", B: "backward", I: "input grad", W: "weight grad", OVERLAP_F_B: "F and B overlapped" };
// SHADES is how many chunks of one rank get their own shade: chunk c
// takes its kind's colour mixed with white by c / SHADES (later chunks
// paler); chunks past the last shade share it.
const SHADES = 4;
const PALETTE = KIND_NAMES.flatMap(k => Array.from({ length: SHADES }, (_, c) => mixWhite(KIND_COLOURS[k], c / SHADES)));

class Gantt {
  constructor(container, opts = {}) {
    this.el = container;
    this.opts = opts;
    this.el.innerHTML = "";
    const tools = document.createElement("div");
    tools.className = "gantt-tools";
    tools.innerHTML = '<button data-z="in" title="zoom in">+</button><button data-z="out" title="zoom out">−</button><button data-z="all" title="whole run">fit</button>' +
      '<button data-export="png" title="save the chart as PNG">PNG</button><button data-export="svg" title="save the chart as SVG">SVG</button>';
    this.el.appendChild(tools);
    tools.addEventListener("click", e => {
      const z = e.target.dataset.z, x = e.target.dataset.export;
      if (z === "in") this.zoomAt(0.5, 0.5);
      else if (z === "out") this.zoomAt(0.5, 2);
      else if (z === "all") this.setWindow(0, this.span);
      else if (x === "png") saveCanvas(this.canvas, (this.opts.name || "gantt") + ".png");
      else if (x === "svg") saveText(this.svg(), (this.opts.name || "gantt") + ".svg", "image/svg+xml");
    });
    this.legend = document.createElement("div");
    this.legend.className = "gantt-legend legend";
    this.el.appendChild(this.legend);
    this.canvas = document.createElement("canvas");
    this.overlay = document.createElement("canvas");
    this.overlay.style.position = "absolute";
    this.overlay.style.left = "0";
    this.el.appendChild(this.canvas);
    this.el.appendChild(this.overlay);
    this.hoverListeners = [];
    this.viewListeners = [];
    this.attach();
  }

  // setData takes the API's timeline and draws it; the time axis runs to
  // the timeline's end or to minSpan, whichever is later (side-by-side charts
  // share one axis).
  setData(tl, unit, minSpan = 0) {
    this.unit = unit || "";
    const c = tl.compute;
    const n = c.rank.length;
    this.tl = tl;
    this.ranks = tl.ranks;
    const counts = new Int32Array(this.ranks);
    for (let i = 0; i < n; i++) counts[c.rank[i]]++;
    // A rank's chunks are its stages in order: chunk 0 is its lowest stage.
    const stagesOf = Array.from({ length: this.ranks }, () => new Set());
    for (let i = 0; i < n; i++) stagesOf[c.rank[i]].add(c.stage[i]);
    const chunkOf = stagesOf.map(set => new Map([...set].sort((a, b) => a - b).map((st, j) => [st, j])));
    this.chunks = Math.max(1, ...stagesOf.map(set => set.size));
    this.rows = [];
    for (let r = 0; r < this.ranks; r++) {
      this.rows.push({ start: new Float64Array(counts[r]), end: new Float64Array(counts[r]), kind: new Uint8Array(counts[r]), idx: new Int32Array(counts[r]), n: 0 });
    }
    let span = 0;
    for (let i = 0; i < n; i++) {
      const row = this.rows[c.rank[i]];
      const k = row.n++;
      row.start[k] = c.start[i];
      row.end[k] = c.end[i];
      row.kind[k] = Math.max(0, KIND_NAMES.indexOf(c.kind[i])) * SHADES + Math.min(SHADES - 1, chunkOf[c.rank[i]].get(c.stage[i]));
      row.idx[k] = i;
      span = Math.max(span, c.end[i]);
    }
    for (const row of this.rows) sortRow(row);
    for (let i = 0; i < tl.comm.end.length; i++) span = Math.max(span, tl.comm.end[i]);
    this.span = Math.max(span, minSpan) || 1;
    this.t0 = 0;
    this.t1 = this.span;
    this.drawLegend(new Set(c.kind));
    this.resize();
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    const width = Math.max(300, this.el.clientWidth);
    this.rowH = Math.max(4, Math.min(26, Math.floor((this.opts.maxHeight || 560) / Math.max(1, this.ranks))));
    this.left = 56;
    this.top = 4;
    const height = this.top + this.rowH * this.ranks + 22;
    for (const cv of [this.canvas, this.overlay]) {
      cv.width = Math.round(width * dpr);
      cv.height = Math.round(height * dpr);
      cv.style.width = width + "px";
      cv.style.height = height + "px";
      cv.getContext("2d").setTransform(dpr, 0, 0, dpr, 0, 0);
    }
    this.overlay.style.top = this.canvas.offsetTop + "px";
    this.width = width;
    this.height = height;
    this.draw();
  }

  plotWidth() { return this.width - this.left - 8; }
  x(t) { return this.left + (t - this.t0) / (this.t1 - this.t0) * this.plotWidth(); }
  time(x) { return this.t0 + (x - this.left) / this.plotWidth() * (this.t1 - this.t0); }

  draw() {
    if (!this.rows) return;
    const t0 = performance.now();
    const ctx = this.canvas.getContext("2d");
    ctx.clearRect(0, 0, this.width, this.height);
    ctx.font = "10px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    const h = this.rowH;
    const gap = h >= 8 ? 1 : 0;
    const labels = h >= 12;
    // Zoomed out, bars are narrower than a pixel or two: writing pixels
    // beats a canvas call per bar by far (software canvases).
    const dense = this.visibleEvents() > 2 * this.plotWidth() * this.ranks / 4;
    for (let r = 0; r < this.ranks; r++) {
      const y = this.top + r * h;
      if (r % 2 === 1) { ctx.fillStyle = "#f7f8fa"; ctx.fillRect(this.left, y, this.plotWidth(), h); }
      if (h >= 12 || r % Math.ceil(12 / h) === 0) {
        ctx.fillStyle = "#445";
        ctx.textAlign = "right";
        ctx.fillText("rank " + r, this.left - 6, y + h / 2);
      }
      if (!dense) this.drawRow(ctx, this.rows[r], y + gap, h - 2 * gap, labels);
    }
    if (dense) this.drawDense(ctx, gap);
    this.drawAxis(ctx);
    this.lastDrawMs = performance.now() - t0;
    for (const f of this.viewListeners) f(this.t0, this.t1);
  }

  // visibleEvents estimates the events in the window from the share of
  // the run it shows.
  visibleEvents() {
    return this.tl.compute.rank.length * (this.t1 - this.t0) / this.span;
  }

  // drawDense writes the bars as pixels: each device pixel column of a row
  // takes the colour of the last event that covers it.
  drawDense(ctx, gap) {
    const dpr = window.devicePixelRatio || 1;
    const W = Math.round(this.plotWidth() * dpr), rowPx = this.rowH * dpr, H = Math.round(rowPx * this.ranks);
    const img = ctx.createImageData(W, H);
    const buf = new Uint32Array(img.data.buffer);
    const colours = PALETTE.map(rgba);
    const stripe = rgba("#f7f8fa"), scale = W / (this.t1 - this.t0);
    const cols = new Int16Array(W);
    for (let r = 0; r < this.ranks; r++) {
      const row = this.rows[r];
      cols.fill(-1);
      for (let i = firstEnding(row, this.t0); i < row.n && row.start[i] <= this.t1; i++) {
        const a = Math.max(0, Math.floor((row.start[i] - this.t0) * scale));
        const b = Math.min(W - 1, Math.max(a, Math.ceil((row.end[i] - this.t0) * scale) - 1));
        for (let x = a; x <= b; x++) cols[x] = row.kind[i];
      }
      const y0 = Math.round(r * rowPx), y1 = Math.round((r + 1) * rowPx), g = Math.round(gap * dpr);
      for (let y = y0; y < y1; y++) {
        const inBar = y >= y0 + g && y < y1 - g, off = y * W;
        for (let x = 0; x < W; x++) {
          const k = cols[x];
          buf[off + x] = inBar && k >= 0 ? colours[k] : (r % 2 === 1 ? stripe : 0);
        }
      }
    }
    ctx.putImageData(img, Math.round(this.left * dpr), Math.round(this.top * dpr));
  }

  drawRow(ctx, row, y, h, labels) {
    const w = this.plotWidth();
    const scale = w / (this.t1 - this.t0);
    let i = firstEnding(row, this.t0);
    const lastPx = new Float64Array(PALETTE.length).fill(-1);
    const c = this.tl.compute;
    for (; i < row.n && row.start[i] <= this.t1; i++) {
      const x0 = this.left + (row.start[i] - this.t0) * scale;
      const x1 = this.left + (row.end[i] - this.t0) * scale;
      const k = row.kind[i];
      const px = Math.floor(x0);
      if (x1 - x0 < 1) {
        if (px <= lastPx[k]) continue; // this pixel column already has the colour
        lastPx[k] = px;
      }
      const a = Math.max(x0, this.left), b = Math.min(x1, this.left + w);
      ctx.fillStyle = PALETTE[k];
      ctx.fillRect(a, y, Math.max(1, b - a - (x1 - x0 > 4 ? 0.5 : 0)), h);
      if (labels && b - a > 16) {
        const mb = c.microbatch[row.idx[i]];
        if (mb >= 0) {
          ctx.fillStyle = "#fff";
          ctx.textAlign = "center";
          ctx.fillText(String(mb), (a + b) / 2, y + h / 2);
        }
      }
    }
  }

  drawAxis(ctx) {
    const y = this.top + this.rowH * this.ranks;
    ctx.strokeStyle = "#99a";
    ctx.beginPath(); ctx.moveTo(this.left, y + 0.5); ctx.lineTo(this.left + this.plotWidth(), y + 0.5); ctx.stroke();
    const step = niceStep((this.t1 - this.t0) / 8);
    ctx.fillStyle = "#556";
    ctx.textAlign = "center";
    for (let t = Math.ceil(this.t0 / step) * step; t <= this.t1 + 1e-12; t += step) {
      const x = this.x(t);
      ctx.fillRect(x, y, 1, 4);
      ctx.fillText(fmtG(t, 4), x, y + 12);
    }
    ctx.textAlign = "right";
    ctx.fillText(this.unit, this.left - 6, y + 12);
  }

  // drawLegend names the colours of the kinds present and, when a rank
  // holds more than one chunk, the shades of its chunks.
  drawLegend(kinds) {
    let h = KIND_NAMES.filter(k => kinds.has(k)).map(k => `<span data-kind="${k}"><i style="background:${KIND_COLOURS[k]}"></i>${k} ${KIND_LABELS[k]}</span>`).join("");
    if (this.chunks > 1) {
      h += '<span class="chunks">chunks:';
      for (let j = 0; j < Math.min(this.chunks, SHADES); j++) h += ` <i style="background:${PALETTE[j]}"></i>${j}${j === SHADES - 1 && this.chunks > SHADES ? "+" : ""}`;
      h += "</span>";
    }
    this.legend.innerHTML = h;
  }

  // svg is the chart as it is drawn now (its time window), one rect per
  // visible event, with the rank labels and the time axis.
  svg() {
    const w = this.plotWidth(), h = this.rowH, scale = w / (this.t1 - this.t0);
    const gap = h >= 8 ? 1 : 0, legendH = 18;
    let body = "";
    KIND_NAMES.forEach((k, j) => {
      body += `<rect x="${this.left + j * 120}" y="4" width="10" height="10" fill="${KIND_COLOURS[k]}"/><text x="${this.left + j * 120 + 14}" y="13">${k} ${KIND_LABELS[k]}</text>`;
    });
    for (let r = 0; r < this.ranks; r++) {
      const y = legendH + this.top + r * h, row = this.rows[r];
      body += `<text x="${this.left - 6}" y="${y + h / 2 + 3}" text-anchor="end">rank ${r}</text>`;
      for (let i = firstEnding(row, this.t0); i < row.n && row.start[i] <= this.t1; i++) {
        const a = Math.max(this.left, this.left + (row.start[i] - this.t0) * scale), b = Math.min(this.left + w, this.left + (row.end[i] - this.t0) * scale);
        body += `<rect x="${a.toFixed(2)}" y="${y + gap}" width="${Math.max(0.5, b - a).toFixed(2)}" height="${h - 2 * gap}" fill="${PALETTE[row.kind[i]]}"><title>${esc(this.tl.compute.name[row.idx[i]])}</title></rect>`;
      }
    }
    const y = legendH + this.top + h * this.ranks, step = niceStep((this.t1 - this.t0) / 8);
    body += `<line x1="${this.left}" y1="${y}" x2="${this.left + w}" y2="${y}" stroke="#99a"/>`;
    for (let t = Math.ceil(this.t0 / step) * step; t <= this.t1 + 1e-12; t += step) {
      body += `<text x="${this.x(t).toFixed(2)}" y="${y + 14}" text-anchor="middle">${fmtG(t, 4)}</text>`;
    }
    body += `<text x="${this.left - 6}" y="${y + 14}" text-anchor="end">${esc(this.unit)}</text>`;
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${this.width}" height="${this.height + legendH}" font-family="sans-serif" font-size="10" fill="#334">${body}</svg>\n`;
  }

  // eventAt returns the compute event under (x, y), or null.
  eventAt(x, y) {
    const r = Math.floor((y - this.top) / this.rowH);
    if (r < 0 || r >= this.ranks || x < this.left) return null;
    const row = this.rows[r];
    const t = this.time(x);
    const slack = (this.t1 - this.t0) / this.plotWidth(); // one pixel
    let i = firstEnding(row, t - slack);
    if (i < row.n && row.start[i] <= t + slack) return { rank: r, i: row.idx[i] };
    return { rank: r, i: -1 };
  }

  attach() {
    const tip = document.getElementById("tooltip");
    let drag = null;
    this.overlay.addEventListener("mousemove", e => {
      if (!this.rows) return;
      const t0 = performance.now();
      const rect = this.overlay.getBoundingClientRect();
      const x = e.clientX - rect.left, y = e.clientY - rect.top;
      if (drag) {
        const dt = (drag.x - x) / this.plotWidth() * (drag.t1 - drag.t0);
        this.setWindow(drag.t0 + dt, drag.t1 + dt);
        return;
      }
      const hit = this.eventAt(x, y);
      const ctx = this.overlay.getContext("2d");
      ctx.clearRect(0, 0, this.width, this.height);
      if (hit && hit.i >= 0) {
        const c = this.tl.compute, i = hit.i;
        const x0 = this.x(c.start[i]), x1 = this.x(c.end[i]);
        ctx.strokeStyle = "#000";
        ctx.lineWidth = 2;
        ctx.strokeRect(x0, this.top + hit.rank * this.rowH, Math.max(2, x1 - x0), this.rowH);
        tip.textContent = `${c.name[i]}  (rank ${hit.rank})\n${c.kind[i]} of stage ${c.stage[i]}` +
          (c.microbatch[i] >= 0 ? `, microbatch ${c.microbatch[i]}` : "") +
          `\nstart ${fmtG(c.start[i], 6)}  end ${fmtG(c.end[i], 6)}  (${fmtG(c.end[i] - c.start[i], 6)} ${this.unit})`;
        tip.hidden = false;
        tip.style.left = (e.clientX + 14) + "px";
        tip.style.top = (e.clientY + 14) + "px";
      } else {
        tip.hidden = true;
      }
      for (const f of this.hoverListeners) f(hit ? hit.rank : -1);
      (window.explorerStats.hover ||= []).push(performance.now() - t0);
    });
    this.overlay.addEventListener("mouseleave", () => { tip.hidden = true; drag = null; for (const f of this.hoverListeners) f(-1); });
    this.overlay.addEventListener("mousedown", e => {
      const rect = this.overlay.getBoundingClientRect();
      drag = { x: e.clientX - rect.left, t0: this.t0, t1: this.t1 };
    });
    window.addEventListener("mouseup", () => { drag = null; });
    this.overlay.addEventListener("wheel", e => {
      if (!this.rows) return;
      e.preventDefault();
      const rect = this.overlay.getBoundingClientRect();
      const f = Math.max(0, Math.min(1, (e.clientX - rect.left - this.left) / this.plotWidth()));
      this.zoomAt(f, e.deltaY < 0 ? 0.8 : 1.25);
    }, { passive: false });
    window.addEventListener("resize", () => { if (this.rows && this.el.offsetParent) this.resize(); });
  }

  // zoomAt scales the window by factor around the fraction f of its width.
  zoomAt(f, factor) {
    const at = this.t0 + f * (this.t1 - this.t0);
    const w = Math.max((this.t1 - this.t0) * factor, this.span * 1e-6);
    this.setWindow(at - f * w, at - f * w + w);
  }

  setWindow(t0, t1) {
    const w = Math.min(t1 - t0, this.span);
    t0 = Math.max(0, Math.min(t0, this.span - w));
    this.t0 = t0;
    this.t1 = t0 + w;
    if (!this.pending) {
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.draw(); });
    }
  }
}

// mixWhite mixes a #rrggbb colour with white by share (0 = the colour).
function mixWhite(hex, share) {
  const n = parseInt(hex.slice(1), 16);
  const ch = v => Math.round(v + (255 - v) * share).toString(16).padStart(2, "0");
  return "#" + ch(n >> 16) + ch((n >> 8) & 255) + ch(n & 255);
}

// rgba packs a #rrggbb colour as an opaque pixel of ImageData's byte order.
function rgba(hex) {
  const v = parseInt(hex.slice(1), 16);
  return (255 << 24 | (v & 255) << 16 | (v >> 8 & 255) << 8 | v >> 16) >>> 0;
}

// sortRow orders a rank's events by start (a rank runs one at a time).
function sortRow(row) {
  const order = Array.from({ length: row.n }, (_, i) => i);
  order.sort((a, b) => row.start[a] - row.start[b] || a - b);
  for (const key of ["start", "end", "kind", "idx"]) {
    const src = row[key].slice();
    for (let i = 0; i < row.n; i++) row[key][i] = src[order[i]];
  }
}

// firstEnding is the first event of row that ends after t.
function firstEnding(row, t) {
  let lo = 0, hi = row.n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (row.end[mid] <= t) lo = mid + 1; else hi = mid;
  }
  return lo;
}

function niceStep(raw) {
  if (!(raw > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}
