// The progress sign in the header: while a request is pending it names the
// commands running and for how long, the server's queue when others wait
// (GET /api/queue), and offers Stop, which gives up every pending request
// (under "pipelab serve" that cancels the command's context; in the
// browser's own pipelab, static.js stops the worker).
"use strict";

const inflight = new Map(); // id → {name, started, controller}
let inflightNext = 1, progressTimer = null;

// track shows name as running until the returned function is called;
// stopping aborts controller.
function track(name, controller) {
  const id = inflightNext++;
  inflight.set(id, { name, started: performance.now(), controller });
  showProgress();
  progressTimer ||= setInterval(pollProgress, 500);
  return () => {
    inflight.delete(id);
    if (inflight.size === 0) { clearInterval(progressTimer); progressTimer = null; }
    showProgress();
  };
}

let lastQueue = null;

async function pollProgress() {
  if (backend.kind === "browser") {
    // Each worker (static.js) computes one request at a time: its queue is
    // the requests sent to it and not yet done.
    const started = Object.values(backend.workers).filter(b => b.worker), n = started.map(b => b.pending.size);
    lastQueue = { slots: Math.max(started.length, 1), running: n.filter(k => k > 0).length, waiting: n.reduce((a, k) => a + Math.max(k - 1, 0), 0) };
  } else {
    try { lastQueue = await (await apiFetch("/api/queue")).json(); } catch (e) { lastQueue = null; }
  }
  showProgress();
}

function showProgress() {
  const sign = $("progress");
  if (inflight.size === 0) { sign.hidden = true; $("queue").textContent = ""; lastQueue = null; return; }
  const now = performance.now();
  const where = backend.kind === "browser" ? "in this browser" : "on the server";
  $("progress-text").textContent = `running ${where}: ` + [...inflight.values()].map(r => `${r.name} ${((now - r.started) / 1000).toFixed(1)} s`).join(", ");
  const queue = lastQueue && lastQueue.waiting > 0 ? `queue: ${lastQueue.running} running, ${lastQueue.waiting} waiting for ${lastQueue.slots} slot${lastQueue.slots === 1 ? "" : "s"}` : "";
  $("queue").textContent = [queue, ...loadingText()].filter(Boolean).join("; ");
  sign.hidden = false;
}

// loadingText names the static build's modules that are loading, with the
// megabytes come and, when the host says it, the module's size.
function loadingText() {
  if (backend.kind !== "browser") return [];
  const mb = n => (n / 1e6).toFixed(1);
  return Object.values(backend.workers).filter(b => b.worker && b.loading).map(({ wasm, loading: { loaded, total } }) =>
    `loading ${wasm}: ${total >= loaded && total > 0 ? `${mb(loaded)} of ${mb(total)} MB` : `${mb(loaded)} MB`}`);
}

function stopAll() { for (const r of inflight.values()) r.controller?.abort(); }
