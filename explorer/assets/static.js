// Where the page's API requests go. Served by "pipelab serve", they are
// network requests. Opened from a static host (make explorer-static), where
// /api/queue does not answer JSON, they go to a Web Worker (worker.js) that
// runs the explorer's own server compiled to WebAssembly, and come back as
// Responses, streamed as the worker posts them: the rest of the page does
// not know the difference. Replays (/api/train) go to a second worker with
// the replay build (pipelab-replay.wasm, which links Arrow and is eight
// times the size), started on the first replay only; every other request
// goes to the first (pipelab.wasm).
"use strict";

// A worker's entry: its module, how long a cancelled request may take to
// end before the worker is stopped, and its state once started.
function browserWorker(wasm, grace) {
  return { wasm, grace, worker: null, ready: null, pending: new Map(), loading: null, cancelling: new Set() };
}

const backend = {
  kind: null, // "server" or "browser"
  detected: null, // the promise of kind
  // A command computing in pipelab.wasm reads no message: a cancel that has
  // not ended it in 300 ms stops the worker. A replay reads its messages at
  // each record (cmd/explorer-wasm's replay build), so it is given longer
  // before its worker, slow to load, is stopped.
  workers: { main: browserWorker("pipelab.wasm", 300), replay: browserWorker("pipelab-replay.wasm", 3000) },
  next: 1,
};

// workerFor is the worker that serves path.
function workerFor(path) {
  return /^\/?api\/train(\/|$)/.test(path) ? backend.workers.replay : backend.workers.main;
}

// detectBackend settles backend.kind once: "server" when GET /api/queue
// answers JSON, else "browser".
function detectBackend() {
  backend.detected ||= (async () => {
    try {
      const r = await fetch("api/queue", { cache: "no-store" });
      if (r.ok && (r.headers.get("Content-Type") || "").startsWith("application/json")) backend.kind = "server";
    } catch (e) { /* no server: the browser's own */ }
    backend.kind ||= "browser";
    document.body.dataset.backend = backend.kind;
    return backend.kind;
  })();
  return backend.detected;
}

function startWorker(b) {
  const w = b.worker = new Worker("worker.js?wasm=" + encodeURIComponent(b.wasm));
  b.loading = { loaded: 0, total: 0 };
  b.ready = new Promise((resolve, reject) => {
    w.onmessage = e => {
      const m = e.data, p = b.pending.get(m.id);
      if (m.type === "loading") { b.loading = { loaded: m.loaded, total: m.total }; return showProgress(); }
      if (m.type === "ready") { b.loading = null; showProgress(); return resolve(); }
      if (m.type === "failed") { stopWorker(b, "failed"); return reject(new Error(`the browser's pipelab (${b.wasm}) did not start: ` + m.error)); }
      if (!p) return;
      if (m.type === "end") { b.pending.delete(m.id); p.ended(); }
      if (p.aborted) return;
      if (m.type === "start") {
        const body = new ReadableStream({ start(c) { p.controller = c; } });
        p.resolve(new Response(body, { status: m.status, headers: m.headers }));
      } else if (m.type === "chunk") p.controller.enqueue(m.bytes);
      else if (m.type === "end") p.controller?.close();
    };
  });
}

// abortRequest ends a request on the page's side as fetch ends an aborted
// one: its promise, or its body's stream, fails with an AbortError.
function abortRequest(p, reason) {
  if (p.aborted) return;
  p.aborted = true;
  const err = new DOMException(reason, "AbortError");
  p.reject(err);
  try { p.controller?.error(err); } catch (e) { /* already closed */ }
}

// stopWorker ends a worker and every request in it: the way to stop a
// command that is computing and does not read the cancel. The next request
// starts a new one.
function stopWorker(b, reason) {
  b.worker?.terminate();
  b.worker = null;
  b.loading = null;
  for (const p of b.pending.values()) { abortRequest(p, reason); p.ended(); }
  b.pending.clear();
}

// apiFetch is fetch for the API's paths ("/api/simulate").
async function apiFetch(path, init = {}) {
  if ((await detectBackend()) === "server") return fetch(path, init);
  const b = workerFor(path), signal = init.signal;
  // A request given up and not yet ended in its worker may still be
  // computing there, and its worker may be stopped: the next waits.
  while (b.cancelling.size) await Promise.all(b.cancelling);
  if (!b.worker) startWorker(b);
  const worker = b.worker;
  // Stop while the module loads gives the request up; the module goes on
  // loading, for the next one.
  await Promise.race([b.ready, new Promise((_, reject) => {
    if (signal?.aborted) reject(new DOMException("stopped", "AbortError"));
    signal?.addEventListener("abort", () => reject(new DOMException("stopped", "AbortError")));
  })]);
  if (b.worker !== worker) throw new DOMException("stopped", "AbortError"); // stopped while loading
  const id = backend.next++;
  return new Promise((resolve, reject) => {
    const p = { resolve, reject, controller: null, aborted: false };
    const ended = new Promise(r => { p.ended = r; });
    b.pending.set(id, p);
    worker.postMessage({ type: "request", id, method: init.method || "GET", path, body: init.body || "" });
    signal?.addEventListener("abort", () => {
      if (!b.pending.has(id)) return;
      abortRequest(p, "stopped");
      b.cancelling.add(ended);
      ended.then(() => b.cancelling.delete(ended));
      worker.postMessage({ type: "cancel", id });
      // If the cancel has not ended the request soon, the worker goes.
      setTimeout(() => { if (b.pending.get(id) === p && b.worker === worker) stopWorker(b, "stopped"); }, b.grace);
    });
  });
}
