// Schedules side by side: one Gantt per schedule, stacked, on one time
// axis (each runs to the longest makespan, so a bar's length and place
// compare across them), zoomed and panned together, and saved together as
// one PNG or one SVG.
"use strict";

class SideBySide {
  constructor(container, name) {
    this.el = container;
    this.name = name;
    this.gantts = [];
    this.titles = [];
  }

  // setData draws each {title, timeline} with the unit, on the longest
  // span of them all.
  setData(items, unit) {
    this.el.innerHTML = "";
    const tools = document.createElement("div");
    tools.className = "chart-tools";
    tools.innerHTML = '<span class="legend">all on one time axis; zoom or drag one to move all</span>' +
      '<button data-export="png" title="save the stack as PNG">PNG</button><button data-export="svg" title="save the stack as SVG">SVG</button>';
    tools.addEventListener("click", e => {
      if (e.target.dataset.export === "png") saveCanvas(this.canvas(), this.name + ".png");
      if (e.target.dataset.export === "svg") saveText(this.svg(), this.name + ".svg", "image/svg+xml");
    });
    this.el.appendChild(tools);
    const span = Math.max(...items.map(it => timelineEnd(it.timeline)));
    this.titles = items.map(it => it.title);
    this.gantts = items.map(it => {
      const h = document.createElement("h3");
      h.textContent = it.title;
      const wrap = document.createElement("div");
      wrap.className = "gantt-wrap";
      wrap.dataset.title = it.title;
      this.el.append(h, wrap);
      const g = new Gantt(wrap, { maxHeight: 200, name: this.name + "-" + it.title.split(" ")[0] });
      g.setData(it.timeline, unit, span);
      return g;
    });
    for (const g of this.gantts) g.viewListeners.push((t0, t1) => {
      for (const o of this.gantts) if (o !== g && (o.t0 !== t0 || o.t1 !== t1)) o.setWindow(t0, t1);
    });
  }

  // canvas is the stack as one image: each chart under its title.
  canvas() {
    const dpr = window.devicePixelRatio || 1, titleH = Math.round(20 * dpr);
    const out = document.createElement("canvas");
    out.width = Math.max(...this.gantts.map(g => g.canvas.width));
    out.height = this.gantts.reduce((h, g) => h + titleH + g.canvas.height, 0);
    const ctx = out.getContext("2d");
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, out.width, out.height);
    let y = 0;
    this.gantts.forEach((g, i) => {
      ctx.fillStyle = "#223";
      ctx.font = `${Math.round(12 * dpr)}px system-ui, sans-serif`;
      ctx.textBaseline = "middle";
      ctx.fillText(this.titles[i], 6 * dpr, y + titleH / 2);
      ctx.drawImage(g.canvas, 0, y + titleH);
      y += titleH + g.canvas.height;
    });
    return out;
  }

  // svg is the stack as one SVG: each chart's own SVG under its title.
  svg() {
    let y = 0, body = "";
    const width = Math.max(...this.gantts.map(g => g.width));
    this.gantts.forEach((g, i) => {
      const one = g.svg(), h = Number(one.match(/height="([\d.]+)"/)[1]);
      body += `<text x="6" y="${y + 14}" font-size="12" font-weight="600">${esc(this.titles[i])}</text>`;
      body += one.trim().replace("<svg ", `<svg y="${y + 20}" `).replace(' xmlns="http://www.w3.org/2000/svg"', "");
      y += 20 + h;
    });
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" font-family="sans-serif" font-size="10" fill="#334">${body}</svg>\n`;
  }
}

// timelineEnd is when a timeline's last compute or message ends.
function timelineEnd(tl) {
  let end = 0;
  for (const t of tl.compute.end) end = Math.max(end, t);
  for (const t of tl.comm.end) end = Math.max(end, t);
  return end;
}
