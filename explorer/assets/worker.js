// The static build's Web Worker: it runs the explorer's server compiled to
// WebAssembly (cmd/explorer-wasm) and passes it the page's requests
// (static.js). A message {type: "request", id, method, path, body} is
// served by the explorer's handler; the answer comes back as "start"
// (status, headers), "chunk" (part of the body, as the handler flushes it)
// and "end". {type: "cancel", id} ends the request's context.
"use strict";

importScripts("memfs.js", "wasm_exec.js");

const early = [];
let ready = false;
globalThis.pipelabReady = () => { ready = true; postMessage({ type: "ready" }); early.splice(0).forEach(take); };
globalThis.pipelabStart = (id, status, headers) => postMessage({ type: "start", id, status, headers: Object.fromEntries(Object.entries(headers)) });
globalThis.pipelabChunk = (id, bytes) => postMessage({ type: "chunk", id, bytes }, [bytes.buffer]);
globalThis.pipelabEnd = id => postMessage({ type: "end", id });

function take(m) {
  if (m.type === "request") pipelabServe(m.id, m.method, m.path, m.body || "");
  if (m.type === "cancel") pipelabCancel(m.id);
}
onmessage = e => { if (ready) take(e.data); else early.push(e.data); };

const go = new Go();
WebAssembly.instantiateStreaming(fetch("pipelab.wasm"), go.importObject)
  .then(r => go.run(r.instance))
  .catch(e => postMessage({ type: "failed", error: String(e.message || e) }));
