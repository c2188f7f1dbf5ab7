// Replays in the static build (test.sh runs this file against the static folder only), at 1280 and
// 390 px: the first replay loads pipelab-replay.wasm into a second worker, the progress sign saying
// so with its size; the loss records reach the chart as the replay takes them, not all at its end;
// the final loss is the command line's for the same flags (quadratic, and at 1280 px a charlm
// replay small enough for CI); Stop ends a replay, the worker reading the cancel and staying for the next one.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { cliJSON, sameDigits } from "./cli.mjs";

const url = process.env.EXPLORER_URL, shots = process.env.SCREENSHOTS, folder = process.env.STATIC;
let browser;

before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-background-networking"] });
});
after(async () => { await browser?.close(); });

// replay sets the staleness view's fields, clicks Replay and waits for the report. It returns, in ms
// from the click, when each loss point reached the chart (LossChart.add) and when the report came.
async function replay(page, { objective, optimizer, stepSize, n, records }) {
  await page.selectOption("#objective", objective);
  await page.selectOption("#method", "pipedream");
  await page.selectOption("#optimizer", optimizer);
  await page.fill("#step-size", stepSize);
  await page.fill("#train-microbatches", String(n));
  await page.fill("#log-points", String(records));
  return page.evaluate(() => new Promise((resolve, reject) => {
    const points = [], add = LossChart.prototype.add;
    LossChart.prototype.add = function (p) { points.push(performance.now() - t0); return add.call(this, p); };
    window.explorerStats.train = null;
    const t0 = performance.now();
    document.querySelector("#run-train").click();
    const wait = setInterval(() => {
      const failed = document.querySelector("#status-train.error");
      if (!window.explorerStats.train && !failed) return;
      clearInterval(wait);
      LossChart.prototype.add = add;
      if (failed) reject(new Error(failed.textContent));
      else resolve({ points, report: performance.now() - t0 });
    }, 5);
  }));
}

// cliTrain is the command line's report for the page's flags (the panel's 1f1b on P = 4 stages).
function cliTrain({ objective, optimizer, stepSize, n, records }) {
  return cliJSON("train", "--objective", objective, "--method", "pipedream", "--optimizer", optimizer, "--step-size", stepSize,
    "--kind", "1f1b", "--stages", "4", "--total-microbatches", String(n), "--log-points", String(records));
}

// streamed says that the records reached the chart while the replay ran: the first before half of
// the time from the click to the report, the last before the report. Held until the end (Go's wasm
// keeping the worker busy), they would all come in the report's last moments.
function streamed(t, what) {
  assert.ok(t.points.length > 0, `${what}: no loss point`);
  assert.ok(t.points[0] < t.report / 2, `${what}: the first loss point came at ${t.points[0].toFixed(0)} ms, the report at ${t.report.toFixed(0)} ms`);
}

for (const w of [1280, 390]) describe(`${w} px`, () => {
  let page;
  const requested = [];
  before(async () => {
    page = await browser.newPage({ viewport: { width: w, height: w < 760 ? 844 : 1000 } });
    page.on("pageerror", e => { throw e; });
    page.on("request", r => requested.push(new URL(r.url()).pathname)); // the workers' requests too
    await page.goto(url);
    await page.waitForFunction(() => window.explorerStats.ready, null, { timeout: 60000 });
    await page.click('#tabs [data-view="staleness"]');
  });
  after(async () => { await page?.close(); });

  const quadratic = { objective: "quadratic", optimizer: "sgd", stepSize: "0.01", n: 400, records: 50 };

  test("the first replay loads pipelab-replay.wasm, saying so with its size, and is the command line's", async () => {
    const loaded = () => requested.includes("/pipelab-replay.wasm");
    assert.ok(requested.includes("/pipelab.wasm"), "pipelab.wasm was not loaded");
    assert.equal(loaded(), false, "pipelab-replay.wasm was loaded before the first replay");
    // Everything the progress sign says while the replay runs.
    await page.evaluate(() => {
      window.signs = [];
      new MutationObserver(() => window.signs.push(document.querySelector("#queue").textContent)).observe(document.querySelector("#progress"), { subtree: true, childList: true, characterData: true });
    });
    const t = await replay(page, quadratic);
    assert.equal(loaded(), true);
    const mb = (statSync(join(folder, "pipelab-replay.wasm")).size / 1e6).toFixed(1);
    const signs = await page.evaluate(() => window.signs);
    assert.ok(signs.some(s => new RegExp(`loading pipelab-replay\\.wasm: [0-9.]+ of ${mb.replace(".", "\\.")} MB`).test(s)), `no "loading pipelab-replay.wasm: … of ${mb} MB" among ${JSON.stringify([...new Set(signs)])}`);
    const rep = cliTrain(quadratic);
    sameDigits(await page.locator("#train-final-loss").innerText(), rep.final_loss, "final loss");
    assert.equal(t.points.length, rep.curve.length);
    console.log(`${w} px, first replay (quadratic, N ${quadratic.n}, ${quadratic.records} records): Replay clicked to the first loss point ${t.points[0].toFixed(0)} ms, to the report ${t.report.toFixed(0)} ms (pipelab-replay.wasm loaded, ${mb} MB)`);
  });

  test("a replay streams its records and ends with the command line's final loss", async () => {
    const t = await replay(page, quadratic);
    streamed(t, "quadratic");
    sameDigits(await page.locator("#train-final-loss").innerText(), cliTrain(quadratic).final_loss, "final loss");
    console.log(`${w} px, quadratic replay again: first loss point ${t.points[0].toFixed(0)} ms, report ${t.report.toFixed(0)} ms after Replay`);
  });

  // charlm's replay is slow in the browser (its kernels' pure Go path, WebAssembly having no
  // assembly): once, at 1280 px.
  if (w === 1280) test("a small charlm replay streams, with its validation curve, and ends with the command line's final loss", async () => {
    const charlm = { objective: "charlm", optimizer: "adam", stepSize: "0.01", n: 8, records: 4 };
    const t = await replay(page, charlm);
    streamed(t, "charlm");
    const rep = cliTrain(charlm);
    sameDigits(await page.locator("#train-final-loss").innerText(), rep.final_loss, "final loss");
    assert.equal(t.points.length, rep.curve.length);
    assert.deepEqual(await page.$$eval("#loss-legend [data-curve]", s => s.map(x => x.dataset.curve)), ["training loss", "validation loss"]);
    console.log(`${w} px, charlm replay (N ${charlm.n}, ${charlm.records} records): first loss point ${t.points[0].toFixed(0)} ms, report ${t.report.toFixed(0)} ms after Replay`);
    await page.screenshot({ path: join(shots, "explorer-replay-static.png"), fullPage: true });
  });

  test("Stop ends a replay; the replay's worker reads the cancel and serves the next one", async () => {
    await page.selectOption("#objective", "quadratic");
    await page.selectOption("#optimizer", "sgd");
    await page.fill("#step-size", "0.01");
    await page.fill("#train-microbatches", "200000");
    await page.fill("#log-points", "1000");
    const worker = await page.evaluateHandle(() => backend.workers.replay.worker);
    await page.click("#run-train");
    await page.waitForFunction(() => /^([2-9]|\d{2,}) records/.test(document.querySelector("#status-train").textContent), null, { timeout: 120000 });
    await page.click(w < 760 ? "#stop-train" : "#progress-stop");
    await page.waitForFunction(() => /^stopped after/.test(document.querySelector("#status-train").textContent), null, { timeout: 10000 });
    // The replay ended in the worker (its request answered its end), which was not stopped.
    await page.waitForFunction(() => backend.workers.replay.pending.size === 0, null, { timeout: 10000 });
    assert.equal(await page.evaluate(w => backend.workers.replay.worker === w, worker), true, "the replay's worker was stopped");
    const t = await replay(page, quadratic);
    streamed(t, "the replay after Stop");
    sameDigits(await page.locator("#train-final-loss").innerText(), cliTrain(quadratic).final_loss, "final loss after Stop");
  });
});
