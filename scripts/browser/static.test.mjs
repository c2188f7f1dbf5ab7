// The static build only (make explorer-static, served by static-server.mjs): the page finds no
// pipelab server and runs the explorer's server compiled to WebAssembly in a Web Worker; each
// command either runs there, with the command line's numbers, or says that it needs pipelab serve.
// train runs there too, in a second worker (replay.test.mjs tests it further).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { cli, cliError, cliJSON, line, sameDigits } from "./cli.mjs";

const url = process.env.EXPLORER_URL, shots = process.env.SCREENSHOTS;
let browser, page;
const requests = [];

before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-background-networking"] });
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on("pageerror", e => { throw e; });
  page.on("request", r => requests.push([r.method(), new URL(r.url()).pathname]));
  await page.goto(url);
  await page.waitForFunction(() => window.explorerStats.ready, null, { timeout: 60000 });
});
after(async () => { await browser?.close(); });

test("no server: one look for /api/queue, then pipelab.wasm in a worker answers", async () => {
  const api = requests.filter(([, p]) => p.includes("/api/"));
  assert.deepEqual(api, [["GET", "/api/queue"]]);
  for (const f of ["/worker.js", "/memfs.js", "/wasm_exec.js", "/pipelab.wasm"]) assert.ok(requests.some(([, p]) => p === f), `${f} was not loaded`);
  // The replay build is loaded on the first replay only (replay.test.mjs).
  assert.ok(!requests.some(([, p]) => p === "/pipelab-replay.wasm"), "pipelab-replay.wasm was loaded with the page");
  assert.equal(await page.evaluate(() => backend.kind), "browser");
  const out = cli("simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8");
  assert.equal(await page.locator("#sched-makespan").innerText(), line(out, "makespan"));
  await page.screenshot({ path: join(shots, "explorer-static.png"), fullPage: true });
});

test("a table too large for the browser is refused before it is allocated, in the command line's words", async () => {
  // cmd/explorer-wasm sets the size guards' limit to 3 GiB (3/4 of a wasm32 memory's 4 GiB), as
  // --max-memory 3GiB sets it for the command line.
  const big = ["--kind", "1f1b", "--ranks", "4096", "--microbatches", "1000000"];
  const p = await page.evaluate(async flags => { const r = await apiFetch("/api/simulate", { method: "POST", body: JSON.stringify({ flags }) }); return [r.status, await r.json()]; },
    { kind: "1f1b", ranks: "4096", microbatches: "1000000" });
  assert.equal(p[0], 413); // as pipelab serve answers a request too large for its limit
  assert.equal(p[1].error, cliError("simulate", ...big, "--max-memory", "3GiB"));
  // The worker is still there: the next request is answered.
  const q = await page.evaluate(async () => (await apiFetch("/api/queue")).json());
  assert.equal(q.slots, 1);
});

// outcome waits for a view's answer: "runs" when done appears, else the status's error, which must
// say that the command needs pipelab serve.
async function outcome(name, done, statusSel) {
  await page.waitForFunction(([d, s]) => document.querySelector(d) || document.querySelector(s + ".error"), [done, statusSel], { timeout: 120000 });
  if (await page.locator(done).count()) return "runs";
  const msg = await page.locator(statusSel).innerText();
  assert.match(msg, /^needs pipelab serve: /, `${name}: ${msg}`);
  return "needs pipelab serve";
}

test("every command runs in the browser or says it needs pipelab serve", async () => {
  const seen = {};
  await page.click('#tabs [data-view="compare"]');
  await page.fill("#compare-kind", "gpipe,1f1b,zb-h1");
  await page.evaluate(() => { document.querySelector("#compare-table").innerHTML = ""; });
  await page.click("#run-compare");
  seen.compare = await outcome("compare", "#compare-table table", "#status-compare");
  if (seen.compare === "runs") {
    const rep = cliJSON("compare", "--ranks", "4", "--microbatches", "8", "--kind", "gpipe,1f1b,zb-h1");
    const shown = await page.$$eval("#compare-table tr[data-kind]", rows => rows.map(r => [r.dataset.kind, r.cells[5].innerText]));
    shown.forEach(([k, v], i) => { assert.equal(k, rep.kinds[i].kind); sameDigits(v, rep.kinds[i].makespan, k); });
  }
  await page.click('#tabs [data-view="staleness"]');
  await page.click("#run-delays");
  seen.delays = await outcome("delays", "#delays-max", "#status-delays");
  if (seen.delays === "runs") sameDigits(await page.locator("#delays-max").innerText(), cliJSON("delays", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8").max, "max delay");
  await page.fill("#train-microbatches", "400");
  await page.fill("#log-points", "10");
  await page.evaluate(() => { window.explorerStats.train = null; });
  await page.click("#run-train");
  await page.waitForFunction(() => window.explorerStats.train || document.querySelector("#status-train.error"), null, { timeout: 120000 });
  seen.train = await outcome("train", "#train-final-loss", "#status-train");
  assert.equal(seen.train, "runs", "train runs in the browser (pipelab-replay.wasm)");
  sameDigits(await page.locator("#train-final-loss").innerText(), cliJSON("train", "--objective", "quadratic", "--method", "pipedream", "--optimizer", "sgd", "--step-size", "0.01",
    "--kind", "1f1b", "--stages", "4", "--total-microbatches", "400", "--log-points", "10").final_loss, "final loss");
  await page.click('#tabs [data-view="ready"]');
  await page.click("#run-ready");
  seen["simulate --policy ready"] = await outcome("ready", "#ready-ready-makespan", "#status-ready");
  // tune takes a GPU model: the page's presets, as explorer.test.mjs tunes them on the served page.
  await page.selectOption("#costmode", "gpu");
  await page.selectOption("#model", "gpt-1.3b");
  await page.selectOption("#gpu", "h100");
  await page.selectOption("#link", "ib-ndr");
  await page.fill("#ranks", "2");
  await page.fill("#microbatches", "4");
  await page.fill("#tune-kind", "1f1b,zb-h1");
  await page.click("#run-tune");
  seen.tune = await outcome("tune", "#tune-makespan", "#status-tune");
  if (seen.tune === "runs") {
    const rep = cliJSON("tune", "--ranks", "2", "--microbatches", "4", "--model", "gpt-1.3b", "--gpu", "h100", "--link", "ib-ndr", "--microbatch-size", "1", "--seq-len", "2048", "--kind", "1f1b,zb-h1");
    sameDigits(await page.locator("#tune-makespan").innerText(), rep.tuned_makespan, "tuned makespan");
  }
  await page.selectOption("#costmode", "unit");
  await page.fill("#ranks", "4");
  await page.fill("#microbatches", "8");
  await page.click('#tabs [data-view="schedule"]');
  for (const what of ["csv", "trace", "report.txt", "report.json"]) {
    await page.evaluate(() => { const s = document.querySelector("#status-schedule"); s.textContent = ""; s.classList.remove("error"); });
    const dl = page.waitForEvent("download", { timeout: 120000 }).then(() => "runs", () => "no download");
    await page.click(`[data-download="${what}"]`);
    const failed = page.waitForSelector("#status-schedule.error", { timeout: 120000 }).then(() => "refused", () => "no answer");
    const got = await Promise.race([dl, failed]);
    if (got === "refused") assert.match(await page.locator("#status-schedule").innerText(), /^needs pipelab serve: /, `download ${what}`);
    else assert.equal(got, "runs", `download ${what}`);
    seen["download " + what] = got === "runs" ? "runs" : "needs pipelab serve";
  }
  const by = v => Object.keys(seen).filter(k => seen[k] === v).join(", ") || "none";
  console.log(`static build: runs in the browser: simulate, schedule, ${by("runs")}; needs pipelab serve: ${by("needs pipelab serve")}`);
});
