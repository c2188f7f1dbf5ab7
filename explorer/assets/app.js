// The page: collects the fields into a command's flags (the field's
// data-flag is the flag's name), posts them to the API, and shows the
// command's report, or its one-line error beside the field it names.
"use strict";

window.explorerStats = { hover: [] };
const $ = id => document.getElementById(id);
const views = {};

// ---- requests -------------------------------------------------------------

async function api(command, body) {
  const controller = new AbortController(), done = track(command, controller);
  try {
    const res = await apiFetch("/api/" + command, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal: controller.signal });
    const data = await res.json();
    if (!res.ok) throw Object.assign(new Error(data.error), { problem: needsServer(res.status, data) });
    return data;
  } catch (e) {
    if (e.name === "AbortError") throw Object.assign(new Error("stopped"), { problem: { error: `stopped: ${command} was given up` } });
    throw e;
  } finally { done(); }
}

// needsServer marks what the browser's own pipelab does not run (the
// library's server answers 501, Not Implemented) as needing "pipelab
// serve".
function needsServer(status, p) {
  if (backend.kind !== "browser" || status !== 501) return p;
  return { ...p, error: "needs pipelab serve: " + p.error + " (this static page runs pipelab in the browser; run pipelab serve for this command, docs/explorer.md)" };
}

const files = {}; // flag name → {name, text}

function val(id) { return $(id).value.trim(); }

// scheduleFlags are the table's flags: a generated family or a dropped CSV.
function scheduleRequest(withChunks = true) {
  const flags = {}, fl = {};
  if ($("source").value === "csv") {
    if (files.schedule) fl.schedule = files.schedule;
  } else {
    flags.kind = val("kind"); flags.ranks = val("ranks");
    // pipedream and localsgd have no iteration: their count is the run's total N.
    flags[["pipedream", "localsgd"].includes(flags.kind) ? "total-microbatches" : "microbatches"] = val("microbatches");
    if (withChunks) flags.chunks = val("chunks");
  }
  return { flags, files: fl };
}

// addCosts adds the cost flags of the chosen cost model.
function addCosts(req, { partition = true } = {}) {
  const mode = $("costmode").value;
  if (mode === "explicit") for (const f of ["fwd", "bwd", "wgrad", "comm"]) req.flags[f] = val(f);
  if (mode === "gpu" || mode === "hf") {
    if (mode === "gpu") req.flags.model = val("model");
    else if (files["model-config"]) req.files["model-config"] = files["model-config"];
    if (files.hardware) req.files.hardware = files.hardware;
    else { req.flags.gpu = val("gpu"); req.flags.link = val("link"); }
    req.flags["microbatch-size"] = val("microbatch-size");
    req.flags["seq-len"] = val("seq-len");
    if ($("flash-attention").checked) req.flags["flash-attention"] = "true";
    if (partition) req.flags.partition = val("partition");
    // The cluster around each rank: only what was given, so that the command line stays the plain one.
    for (const f of ["tp", "dp", "gpus-per-node", "node-link", "expert-parallel"]) if (val(f)) req.flags[f] = val(f);
    if (val("recompute") !== "none") req.flags.recompute = val("recompute");
    for (const f of ["sequence-parallel", "distributed-optimizer", "overlap-grad-reduce"]) if ($(f).checked) req.flags[f] = "true";
  }
  if (mode === "typed") req.files.costs = { name: "typed-costs.csv", text: typedCostsCSV() };
  if (mode === "measured") {
    if (files.costs) req.files.costs = files.costs;
    if (files.profile) req.files.profile = files.profile;
  }
  return req;
}

function unitOf() {
  return { gpu: "s", hf: "s", explicit: "cost units", measured: "s", typed: "s" }[$("costmode").value] || "steps";
}

// ---- errors beside the fields ---------------------------------------------

function clearProblems() {
  document.querySelectorAll(".view.stale").forEach(v => v.classList.remove("stale"));
  document.querySelectorAll(".err").forEach(e => { e.textContent = ""; });
  document.querySelectorAll(".bad").forEach(e => e.classList.remove("bad"));
}

// showProblem puts the command line's message beside the field of the flag
// it names (the view's own field first, then the panel's) and in the status.
function showProblem(view, statusId, err) {
  const p = err.problem || { error: String(err.message || err) };
  const st = $(statusId);
  st.textContent = p.error;
  st.classList.add("error");
  const section = $("view-" + view);
  section.classList.add("stale"); // what is shown is the previous request's
  if (!p.flag) return;
  for (const flag of [p.flag, ...(FIELD_ALIASES[p.flag] || [])]) {
    // The field shown: a flag may have a field in more than one cost block.
    const shown = el => [...el.querySelectorAll(`[data-err="${flag}"]`)].find(e => !e.closest("[hidden]"));
    const spot = shown(section) || shown($("setup"));
    if (!spot) continue;
    spot.textContent = p.error;
    const fold = spot.closest("details");
    if (fold) fold.open = true;
    const input = section.querySelector(`[data-flag="${flag}"]`) || $("setup").querySelector(`[data-flag="${flag}"], #${CSS.escape(flag)}`);
    if (input) input.classList.add("bad");
    return;
  }
}

// FIELD_ALIASES names the panel's field for a flag the page sets from it
// under another name: train's stages S are the ranks P, and the total N of
// pipedream and localsgd is typed as the microbatches M.
const FIELD_ALIASES = { stages: ["ranks"], "total-microbatches": ["microbatches"] };

function status(id, text) { const s = $(id); s.textContent = text; s.classList.remove("error"); }

// ---- the schedule view ----------------------------------------------------

function summary(el, items) {
  el.innerHTML = items.map(([label, value, id]) => `<div${String(value).length > 24 ? ' class="long"' : ""}><b${id ? ` id="${id}"` : ""}>${esc(value)}</b><span>${esc(label)}</span></div>`).join("");
}

function rankTable(el, rep) {
  let h = "<table><tr><th>rank</th><th>busy</th><th>idle</th><th>bubble</th><th>comm wait</th><th>peak act (M_B)</th><th>peak memory</th></tr>";
  for (const r of rep.per_rank) {
    h += `<tr><td>${r.rank}</td><td>${fmtG(r.busy, 6)}</td><td>${fmtG(r.idle, 6)}</td><td>${fmtG(r.bubble, 6)}</td><td>${fmtG(r.comm_wait, 6)}</td><td>${fmtG(r.peak_activations, 4)}</td><td>${gb(r.peak_memory_bytes)}${r.over_memory ? " over the GPU's memory" : ""}</td></tr>`;
  }
  el.innerHTML = h + "</table>";
}

function simulateSummary(rep) {
  const items = [
    ["makespan", fmtG(rep.makespan, 6), "sched-makespan"],
    ["bubble ratio", fmtF(rep.bubble_ratio, 4), "sched-bubble"],
    ["lockstep steps", rep.lockstep_steps === null ? rep.lockstep_steps_note : String(rep.lockstep_steps), "sched-steps"],
    ["messages", String(rep.messages) + (rep.comm_bytes ? ` (${fmtG(rep.comm_bytes, 4)} bytes)` : ""), "sched-transfers"],
    ["ranks × microbatches", `${rep.ranks} × ${rep.microbatches}`],
    ["cost", rep.cost_model],
  ];
  if (rep.iterations) items.splice(1, 0, ["mean over " + rep.iterations.count + " iterations", fmtG(rep.iterations.mean, 6) + " ± " + fmtG(rep.iterations.spread, 3)]);
  // Under the GPU model: the whole step (makespan, gradient sync, optimizer) and equation 3's FLOP/s.
  if (rep.iteration_seconds) items.splice(1, 0, [rep.post_validation ? "iteration (post-validation: longest span, then its step)" : "iteration (whole step)", fmtG(rep.iteration_seconds, 6), "sched-iteration"],
    ["model FLOP/s per GPU", fmtG(rep.model_flops_per_gpu, 4) + " on " + rep.gpus + " GPUs", "sched-flops"]);
  return items;
}

async function runSchedule() {
  const clickAt = performance.now();
  clearProblems();
  status("status-schedule", "simulating…");
  const req = addCosts(scheduleRequest());
  if ($("post-validation").checked) req.flags["post-validation"] = "true";
  let ans;
  try {
    ans = await api("simulate", req);
  } catch (e) { showProblem("schedule", "status-schedule", e); return; }
  const gotAt = performance.now();
  $("cmdline").textContent = ans.command;
  const rep = ans.report;
  summary($("sched-summary"), simulateSummary(rep));
  const g = views.gantt || (views.gantt = new Gantt($("gantt-schedule"), { maxHeight: 576, name: "schedule" }));
  g.setData(ans.timeline, unitOf());
  const drawMs = g.lastDrawMs;
  requestAnimationFrame(() => requestAnimationFrame(() => {
    window.explorerStats.schedule = { requestMs: gotAt - clickAt, drawMs, firstPaintMs: performance.now() - clickAt, events: ans.timeline.compute.rank.length };
    status("status-schedule", `${ans.timeline.compute.rank.length} compute events; drawn in ${drawMs.toFixed(1)} ms (first paint ${(performance.now() - clickAt).toFixed(0)} ms after the click)`);
  }));
  const mem = views.memory || (views.memory = new MemoryChart($("memory-schedule")));
  mem.setData(activationSteps(ans.timeline, rep.ranks / rep.stages), g.span, rep.per_rank.map(r => r.peak_activations));
  if (!views.linked) {
    views.linked = true;
    g.viewListeners.push((t0, t1) => views.memory.setWindow(t0, t1));
    g.hoverListeners.push(r => views.memory.setHighlight(r));
  }
  splitChart($("split-schedule"), rep);
  rankTable($("ranks-schedule"), rep);
}

async function download(what) {
  const view = what.startsWith("compare") ? "compare" : "schedule";
  const req = view === "compare" ? compareRequest() : addCosts(scheduleRequest());
  clearProblems();
  if (view === "compare" && csvCompared()) return;
  const res = await apiFetch("/api/download/" + what, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(req) });
  if (!res.ok) { showProblem(view, "status-" + view, { problem: needsServer(res.status, await res.json()) }); return; }
  const blob = await res.blob();
  const name = (res.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name ? name[1] : what;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// ---- compare --------------------------------------------------------------

function compareRequest() {
  return addCosts({ flags: { ranks: val("ranks"), microbatches: val("microbatches"), kind: val("compare-kind") }, files: {} }, { partition: false });
}

// csvCompared says, when the source is a PyTorch CSV, that compare takes
// generated families (it builds each family it is given; a dropped table
// is not one), and returns true: the caller sends nothing.
function csvCompared() {
  if ($("source").value !== "csv") return false;
  showProblem("compare", "status-compare", { problem: { error: "compare takes generated families (the kinds here), not a schedule CSV: choose \"generated family\" as the source, or simulate the CSV in the Schedule view", flag: "kind" } });
  return true;
}

async function runCompare() {
  clearProblems();
  if (csvCompared()) return;
  status("status-compare", "comparing…");
  let ans;
  try { ans = await api("compare", compareRequest()); } catch (e) { showProblem("compare", "status-compare", e); return; }
  $("cmdline").textContent = ans.command;
  const rep = ans.report;
  status("status-compare", `P = ${rep.ranks} ranks, M = ${rep.microbatches} microbatches; cost: ${rep.cost_model}`);
  let h = "<table><tr><th>family</th><th>formula</th><th>#</th><th>lockstep steps</th><th>#</th><th>simulated</th><th>#</th><th>bubble</th><th>peak act (M_B)</th><th>formula peak</th><th>peak memory</th></tr>";
  const best = (rank) => rank === 1 ? ' class="best"' : "";
  for (const r of rep.kinds) {
    const name = r.kind + (r.chunks > 1 ? ` (V=${r.chunks})` : "");
    if (r.makespan === null) { h += `<tr><td>${esc(name)}</td><td colspan="10" style="text-align:left">${esc(r.note || "")}</td></tr>`; continue; }
    h += `<tr data-kind="${esc(r.kind)}"><td>${esc(name)}</td>` +
      `<td${best(r.formula_rank)}>${r.formula === null ? "n/a" : fmtG(r.formula, 4)}</td><td>${r.formula_rank || ""}</td>` +
      `<td${best(r.lockstep_rank)}>${r.lockstep_steps === null ? "n/a" : r.lockstep_steps}</td><td>${r.lockstep_rank || ""}</td>` +
      `<td${best(r.makespan_rank)}>${fmtG(r.makespan, 4)}</td><td>${r.makespan_rank}</td>` +
      `<td>${fmtF(r.bubble_ratio, 4)}</td><td>${fmtG(r.peak_activations, 4)}</td><td>${r.formula_peak_activations === null ? "" : fmtG(r.formula_peak_activations, 4)}</td>` +
      `<td>${gb(r.peak_memory_bytes)}${r.over_memory ? " over" : ""}</td></tr>`;
  }
  $("compare-table").innerHTML = h + "</table>";
  const rows = rep.kinds.filter(r => r.makespan !== null);
  barsChart($("compare-bars"), rows.map(r => r.kind + (r.chunks > 1 ? ":" + r.chunks : "")), [
    { name: "formula", colour: "#9db4d6", values: rows.map(r => r.formula) },
    { name: "lockstep steps", colour: "#e0a030", values: rows.map(r => r.lockstep_steps) },
    { name: "simulated", colour: "#2e7d4f", values: rows.map(r => r.makespan) },
  ]);
  await runSideBySide();
}

// runSideBySide simulates each family of the compare view's kinds with
// the panel's ranks, microbatches, chunks and costs, and stacks their
// Gantts on one time axis.
async function runSideBySide() {
  clearProblems();
  if (csvCompared()) return;
  window.explorerStats.side = null;
  const kinds = val("compare-kind").split(",").map(k => k.trim()).filter(k => k);
  const items = [];
  for (const kind of kinds) {
    status("status-side", `simulating ${kind} (${items.length + 1} of ${kinds.length})…`);
    const req = addCosts({ flags: { kind, ranks: val("ranks"), microbatches: val("microbatches"), chunks: val("chunks") }, files: {} });
    let ans;
    try { ans = await api("simulate", req); } catch (e) { showProblem("compare", "status-side", e); return; }
    const rep = ans.report, v = rep.stages / rep.ranks;
    items.push({ title: `${kind}${v > 1 ? ` (V=${v})` : ""}: makespan ${fmtG(rep.makespan, 6)}`, timeline: ans.timeline, kind, makespan: rep.makespan });
  }
  (views.side ||= new SideBySide($("compare-gantts"), "side-by-side")).setData(items, unitOf());
  status("status-side", `${items.length} schedules, one time axis from 0 to ${fmtG(views.side.gantts[0].span, 6)} ${unitOf()}`);
  window.explorerStats.side = items.map(it => ({ kind: it.kind, makespan: it.makespan, events: it.timeline.compute.rank.length }));
}

// ---- readiness and tune ---------------------------------------------------

async function runReady() {
  clearProblems();
  status("status-ready", "simulating the fixed order and the ready policy…");
  const variability = {};
  for (const f of ["jitter", "comm-jitter", "iterations", "seed"]) variability[f] = val(f);
  const fixed = addCosts(scheduleRequest());
  Object.assign(fixed.flags, variability);
  const ready = addCosts(scheduleRequest());
  Object.assign(ready.flags, variability, { policy: "ready", hint: val("hint"), cap: val("cap") });
  if (val("hint") === "table") ready.flags.patience = val("patience");
  let a, b;
  try {
    a = await api("simulate", fixed);
    b = await api("simulate", ready);
  } catch (e) { showProblem("ready", "status-ready", e); return; }
  $("cmdline").textContent = b.command;
  const ra = a.report, rb = b.report;
  const items = [
    ["fixed makespan", fmtG(ra.makespan, 6), "ready-fixed-makespan"],
    ["ready makespan", fmtG(rb.makespan, 6), "ready-ready-makespan"],
    ["fixed bubble ratio", fmtF(ra.bubble_ratio, 4)],
    ["ready bubble ratio", fmtF(rb.bubble_ratio, 4)],
  ];
  if (ra.iterations) {
    items.push(["fixed: mean over " + ra.iterations.count, fmtG(ra.iterations.mean, 6) + " ± " + fmtG(ra.iterations.spread, 3), "ready-fixed-mean"]);
    items.push(["ready: mean over " + rb.iterations.count, fmtG(rb.iterations.mean, 6) + " ± " + fmtG(rb.iterations.spread, 3), "ready-ready-mean"]);
  }
  summary($("ready-summary"), items);
  status("status-ready", "iteration 1 of each is drawn below");
  (views.ganttFixed ||= new Gantt($("gantt-fixed"), { maxHeight: 260, name: "fixed" })).setData(a.timeline, unitOf());
  (views.ganttReady ||= new Gantt($("gantt-ready"), { maxHeight: 260, name: "ready" })).setData(b.timeline, unitOf());
}

function tuneRequest() {
  const req = addCosts({ flags: { ranks: val("ranks"), microbatches: val("microbatches"), "gpu-memory": val("tune-memory"), kind: val("tune-kind") }, files: {} }, { partition: false });
  if ($("tune-post-validation").checked) req.flags["post-validation"] = "true";
  return req;
}

async function runTune() {
  clearProblems();
  status("status-tune", "tuning (every candidate is simulated)…");
  let ans;
  try { ans = await api("tune", tuneRequest()); } catch (e) { showProblem("ready", "status-tune", e); return; }
  $("cmdline").textContent = ans.command;
  const rep = ans.report;
  views.tuned = rep;
  status("status-tune", `${rep.simulations} simulations`);
  const row = (k, a, b) => `<tr><td>${k}</td><td>${a}</td><td>${b}</td></tr>`;
  const part = p => p ? p.join(",") : "";
  $("tune-result").innerHTML = "<table><tr><th></th><th>tuned</th><th>baseline (Megatron-LM's way)</th></tr>" +
    row("kind", esc(rep.kind) + (rep.chunks > 1 ? ` (V=${rep.chunks})` : ""), esc(rep.baseline_kind) + (rep.baseline_chunks > 1 ? ` (V=${rep.baseline_chunks})` : "")) +
    row("partition", part(rep.partition), part(rep.baseline_partition)) +
    row("makespan", `<span id="tune-makespan">${fmtG(rep.tuned_makespan, 6)}</span>`, fmtG(rep.baseline_makespan, 6)) +
    row(rep.post_validation ? "per sample (longest rank span)" : "per sample", `<span id="tune-per-sample">${fmtG(rep.tuned_per_sample, 6)}</span>`, fmtG(rep.baseline_per_sample, 6)) +
    row("peak memory", gb(rep.tuned_peak_memory_bytes), gb(rep.baseline_peak_memory_bytes) + (rep.baseline_fits === false ? " (does not fit)" : "")) +
    row("microbatches", rep.microbatches, rep.microbatches) +
    row("speed-up", `<span id="tune-speedup">${fmtG(rep.speedup, 6)}</span>`, "1") + "</table>";
}

function openTuned() {
  const rep = views.tuned;
  if (!rep) return;
  $("source").value = "kind"; sourceChanged();
  $("kind").value = rep.kind; $("ranks").value = rep.ranks; $("microbatches").value = rep.microbatches;
  $("chunks").value = rep.chunks > 1 ? rep.chunks : "";
  if (rep.partition) $("partition").value = rep.partition.join(",");
  // Simulated as tune timed it: zb-auto chosen the same way, the step the same way.
  $("post-validation").checked = $("tune-post-validation").checked;
  showView("schedule");
  runSchedule();
}

// ---- staleness ------------------------------------------------------------

async function runDelays() {
  clearProblems();
  status("status-delays", "computing delays…");
  let ans;
  try { ans = await api("delays", scheduleRequest()); } catch (e) { showProblem("staleness", "status-delays", e); return; }
  $("cmdline").textContent = ans.command;
  const rep = ans.report;
  status("status-delays", "");
  summary($("delays-summary"), [
    ["block updates", String(rep.block_updates)], ["max delay", fmtG(rep.max, 6), "delays-max"],
    ["mean delay", fmtG(rep.mean, 6), "delays-mean"], ["p10", fmtG(rep.p10, 6)], ["time steps", String(rep.time_steps)],
  ]);
  const st = rep.per_stage;
  barsChart($("delays-chart"), st.map(s => "stage " + s.stage), [
    { name: "max", colour: "#d0584a", values: st.map(s => s.max) },
    { name: "mean", colour: "#3b7dd8", values: st.map(s => s.mean) },
    { name: "p10", colour: "#8fa9c8", values: st.map(s => s.p10) },
  ], true);
}

let trainAbort = null;

async function runTrain() {
  clearProblems();
  const req = addCosts(scheduleRequest(false), { partition: false });
  // train's one-stage-per-rank runs count stages S (= P) and the run's total microbatches N.
  if (req.flags.ranks !== undefined) { req.flags.stages = req.flags.ranks; delete req.flags.ranks; }
  delete req.flags.microbatches; delete req.flags["total-microbatches"];
  Object.assign(req.flags, { objective: val("objective"), method: val("method"), optimizer: val("optimizer"),
    "step-size": val("step-size"), "total-microbatches": val("train-microbatches"), "log-points": val("log-points") });
  const chart = views.loss = new LossChart($("train-chart"));
  $("train-summary").innerHTML = "";
  trainAbort = new AbortController();
  const untrack = track("train", trainAbort);
  $("run-train").disabled = true; $("stop-train").disabled = false;
  status("status-train", "replaying…");
  const started = performance.now();
  let records = 0;
  try {
    const res = await apiFetch("/api/train/stream", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(req), signal: trainAbort.signal });
    if (!res.ok) throw Object.assign(new Error("refused"), { problem: needsServer(res.status, await res.json()) });
    const reader = res.body.getReader(), dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let cut;
      while ((cut = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, cut); buf = buf.slice(cut + 2);
        const event = (block.match(/^event: (.*)$/m) || [])[1], data = JSON.parse((block.match(/^data: (.*)$/m) || [])[1] || "null");
        if (event === "command") $("cmdline").textContent = data.command;
        if (event === "queued") status("status-train", `waiting for a free slot: number ${data.position} in the queue`);
        if (event === "record") { records++; chart.add(data); status("status-train", `${records} records, ${((performance.now() - started) / 1000).toFixed(1)} s`); }
        if (event === "problem") throw Object.assign(new Error(data.error), { problem: data });
        if (event === "report") {
          window.explorerStats.train = data;
          status("status-train", `done: ${records} records streamed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
          summary($("train-summary"), [["final loss", fmtG(data.final_loss, 6), "train-final-loss"], ["outcome", data.outcome],
            ["block updates", String(data.block_updates)], ["simulated time", fmtG(data.sim_time, 6)], ["cost", data.cost_model]]);
        }
      }
    }
  } catch (e) {
    if (e.name === "AbortError") status("status-train", `stopped after ${records} records`);
    else showProblem("staleness", "status-train", e);
  } finally {
    $("run-train").disabled = false; $("stop-train").disabled = true; trainAbort = null; untrack();
  }
}

// ---- the panel ------------------------------------------------------------

function showView(name) {
  document.querySelectorAll("#tabs button").forEach(b => b.classList.toggle("active", b.dataset.view === name));
  document.querySelectorAll(".view").forEach(v => { v.hidden = v.id !== "view-" + name; });
  if (name === "schedule" && views.gantt) views.gantt.resize();
}

function sourceChanged() {
  const csv = $("source").value === "csv";
  $("gen-fields").hidden = csv; $("csv-fields").hidden = !csv;
}

function costChanged() {
  const m = $("costmode").value;
  $("cost-explicit").hidden = m !== "explicit";
  $("cost-gpu").hidden = m !== "gpu" && m !== "hf";
  $("cost-measured").hidden = m !== "measured";
  $("cost-typed").hidden = m !== "typed";
  document.querySelectorAll(".only-gpu").forEach(e => { e.hidden = m !== "gpu"; });
  document.querySelectorAll(".only-hf").forEach(e => { e.hidden = m !== "hf"; });
}

// FILE_INPUTS is the file field of each file flag.
const FILE_INPUTS = { schedule: "csv-file", "model-config": "model-config", hardware: "hardware", costs: "costs", profile: "profile" };

async function takeFile(flag, file) {
  files[flag] = { name: file.name, text: await file.text() };
  if (flag === "schedule") $("csv-name").textContent = file.name + " (" + files[flag].text.split("\n").length + " lines)";
  listFiles();
}

// clearFile forgets an uploaded file: the request goes back to the
// fields the file stood in for (the presets for a hardware file).
function clearFile(flag) {
  delete files[flag];
  $(FILE_INPUTS[flag]).value = "";
  if (flag === "schedule") $("csv-name").textContent = "";
  listFiles();
}

// listFiles shows the files the requests carry, each with its clear button.
function listFiles() {
  const names = Object.keys(files);
  $("files").innerHTML = names.length ? "<h2>Uploaded files</h2>" + names.map(f =>
    `<div data-file="${esc(f)}"><span title="${esc(files[f].name)}">--${esc(f)} ${esc(files[f].name)}</span><button data-clear="${esc(f)}">clear</button></div>`).join("") : "";
}

// dropped reads a file dropped anywhere on the page: a CSV is the schedule,
// a JSON file a Kineto trace of measured costs.
async function dropped(file) {
  if (/\.json$/i.test(file.name)) {
    await takeFile("profile", file);
    $("costmode").value = "measured"; costChanged();
    status("status-schedule", file.name + " taken as the measured profile");
    return;
  }
  await takeFile("schedule", file);
  $("source").value = "csv"; sourceChanged();
  showView("schedule");
  await runSchedule();
}

async function loadChoices() {
  const fill = (id, names, pick) => { $(id).innerHTML = names.map(n => `<option${n === pick ? " selected" : ""}>${esc(n)}</option>`).join(""); };
  const [kinds, presets] = await Promise.all([api("kinds", { flags: {} }), api("presets", { flags: {} })]);
  fill("kind", kinds.text.trim().split("\n").map(l => l.split(/\s+/)[0]), "1f1b");
  fill("model", presets.report.models.map(m => m.name), "gpt-1.3b");
  fill("gpu", presets.report.gpus.map(m => m.name), "h100");
  fill("link", presets.report.links.map(m => m.name), "ib-ndr");
  fill("node-link", ["", ...presets.report.links.map(m => m.name)], "");
}

function init() {
  document.querySelectorAll("#tabs button").forEach(b => b.addEventListener("click", () => showView(b.dataset.view)));
  $("source").addEventListener("change", sourceChanged);
  $("costmode").addEventListener("change", costChanged);
  $("run-schedule").addEventListener("click", runSchedule);
  $("run-compare").addEventListener("click", runCompare);
  $("run-side").addEventListener("click", runSideBySide);
  $("run-ready").addEventListener("click", runReady);
  $("run-tune").addEventListener("click", runTune);
  $("tune-open").addEventListener("click", openTuned);
  $("run-delays").addEventListener("click", runDelays);
  $("run-train").addEventListener("click", runTrain);
  $("stop-train").addEventListener("click", () => trainAbort && trainAbort.abort());
  $("progress-stop").addEventListener("click", stopAll);
  $("files").addEventListener("click", e => { if (e.target.dataset.clear) clearFile(e.target.dataset.clear); });
  // Picking a preset GPU or link means pricing with the presets, not the hardware file.
  for (const id of ["gpu", "link"]) $(id).addEventListener("change", () => { if (files.hardware) clearFile("hardware"); });
  $("panel-toggle").addEventListener("click", () => {
    const folded = document.body.classList.toggle("panel-folded");
    $("panel-toggle").setAttribute("aria-expanded", String(!folded));
    $("panel-toggle").textContent = folded ? "Setup ▾" : "Setup ▴";
  });
  document.querySelectorAll("[data-download]").forEach(a => a.addEventListener("click", e => { e.preventDefault(); download(a.dataset.download); }));
  for (const flag of ["model-config", "hardware", "costs", "profile"]) $(flag).addEventListener("change", e => e.target.files[0] && takeFile(flag, e.target.files[0]));
  $("csv-file").addEventListener("change", e => e.target.files[0] && dropped(e.target.files[0]));
  document.addEventListener("dragover", e => { e.preventDefault(); $("drop").classList.add("over"); });
  document.addEventListener("dragleave", () => $("drop").classList.remove("over"));
  document.addEventListener("drop", e => {
    e.preventDefault(); $("drop").classList.remove("over");
    if (e.dataTransfer.files[0]) dropped(e.dataTransfer.files[0]);
  });
  initTypedCosts();
  sourceChanged(); costChanged();
  // The first picture: the default schedule, simulated without a click.
  loadChoices().then(firstPicture, e => status("status-schedule", "could not load the presets: " + e.message));
}

async function firstPicture() {
  await runSchedule();
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  window.explorerStats.firstPictureMs = performance.now(); // since the page's navigation began
  window.explorerStats.ready = true;
}

init();
