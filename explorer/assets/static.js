// Where the page's API requests go. Served by "pipelab serve", they are
// network requests. Opened from a static host (make explorer-static), where
// /api/queue does not answer JSON, they go to a Web Worker (worker.js) that
// runs the explorer's own server compiled to WebAssembly, and come back as
// Responses, streamed as the worker posts them: the rest of the page does
// not know the difference.
"use strict";

const backend = {
  kind: null, // "server" or "browser"
  detected: null, // the promise of kind
  worker: null,
  ready: null, // the worker's readiness, a promise
  pending: new Map(), // id → {resolve, reject, controller, ended}
  next: 1,
};

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

function startWorker() {
  const w = backend.worker = new Worker("worker.js");
  backend.ready = new Promise((resolve, reject) => {
    w.onmessage = e => {
      const m = e.data, p = backend.pending.get(m.id);
      if (m.type === "ready") return resolve();
      if (m.type === "failed") return reject(new Error("the browser's pipelab did not start: " + m.error));
      if (!p) return;
      if (m.type === "start") {
        const body = new ReadableStream({ start(c) { p.controller = c; } });
        p.resolve(new Response(body, { status: m.status, headers: m.headers }));
      } else if (m.type === "chunk") p.controller.enqueue(m.bytes);
      else if (m.type === "end") { p.ended = true; p.controller?.close(); backend.pending.delete(m.id); }
    };
  });
}

// stopWorker ends the worker and every request in it: the way to stop a
// command that is computing, since the worker reads no message meanwhile.
// The next request starts a new one.
function stopWorker(reason) {
  backend.worker?.terminate();
  backend.worker = null;
  for (const p of backend.pending.values()) {
    const err = new DOMException(reason, "AbortError");
    p.reject(err);
    try { p.controller?.error(err); } catch (e) { /* already closed */ }
  }
  backend.pending.clear();
}

// apiFetch is fetch for the API's paths ("/api/simulate").
async function apiFetch(path, init = {}) {
  if ((await detectBackend()) === "server") return fetch(path, init);
  if (!backend.worker) startWorker();
  await backend.ready;
  const id = backend.next++, signal = init.signal;
  if (signal?.aborted) throw new DOMException("stopped", "AbortError");
  return new Promise((resolve, reject) => {
    const p = { resolve, reject, controller: null, ended: false };
    backend.pending.set(id, p);
    backend.worker.postMessage({ type: "request", id, method: init.method || "GET", path, body: init.body || "" });
    signal?.addEventListener("abort", () => {
      if (!backend.pending.has(id)) return;
      backend.worker.postMessage({ type: "cancel", id });
      // A command computing in the worker reads no message: if the cancel
      // has not ended the request soon, the worker goes.
      setTimeout(() => { if (backend.pending.get(id) === p) stopWorker("stopped"); }, 300);
    });
  });
}
