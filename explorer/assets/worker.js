// The static build's Web Worker: it runs the explorer's server compiled to
// WebAssembly (cmd/explorer-wasm) and passes it the page's requests
// (static.js). Its query names the module: pipelab.wasm, or
// pipelab-replay.wasm (the replay build, with train); while the module
// loads, {type: "loading", loaded, total} says how many bytes have come
// (total 0 when the host does not say the size). A message {type:
// "request", id, method, path, body} is served by the explorer's handler;
// the answer comes back as "start" (status, headers), "chunk" (part of the
// body, as the handler flushes it) and "end". {type: "cancel", id} ends the
// request's context.
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

const modules = ["pipelab.wasm", "pipelab-replay.wasm"];
const wasm = new URLSearchParams(location.search).get("wasm") || modules[0];

// load fetches the module, posting how much has come at most every 100 ms.
async function load() {
  if (!modules.includes(wasm)) throw new Error(`no module ${wasm}: the static build has ${modules.join(" and ")}`);
  const r = await fetch(wasm);
  if (!r.ok) throw new Error(`${wasm}: HTTP ${r.status}`);
  const total = Number(r.headers.get("Content-Length")) || 0;
  let loaded = 0, last = 0;
  postMessage({ type: "loading", loaded, total });
  const count = new TransformStream({
    transform(chunk, c) {
      loaded += chunk.byteLength;
      const now = Date.now();
      if (now - last >= 100) { last = now; postMessage({ type: "loading", loaded, total }); }
      c.enqueue(chunk);
    },
    flush() { postMessage({ type: "loading", loaded, total }); },
  });
  return new Response(r.body.pipeThrough(count), { headers: { "Content-Type": "application/wasm" } });
}

const go = new Go();
WebAssembly.instantiateStreaming(load(), go.importObject)
  .then(r => go.run(r.instance))
  .catch(e => postMessage({ type: "failed", error: String(e.message || e) }));
