// The page's own features, on both builds (test.sh runs this file against "pipelab serve" and
// against the static folder of make explorer-static) and at both widths (1280 and 390 px):
// schedules side by side on one time axis, per-stage times typed in the page, and the progress sign
// with its queue and Stop. Numbers on the page are compared with what the pipelab binary prints for
// the same flags; at 390 px nothing may widen the page past the screen.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { cli, cliJSON, line, sameDigits } from "./cli.mjs";

const url = process.env.EXPLORER_URL, shots = process.env.SCREENSHOTS, work = process.env.WORK, bin = process.env.PIPELAB;
const build = process.env.BUILD || "served"; // "served" or "static"
let browser, page, width;

before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-background-networking"] });
});
after(async () => { await browser?.close(); });

// fits says that at a phone's width nothing widens the page past the screen.
async function fits() {
  if (width < 760) assert.ok(await page.evaluate(w => document.documentElement.scrollWidth <= w, width), "the page scrolls sideways");
}

for (const w of [1280, 390]) describe(`${w} px`, () => {
  // The screenshots in docs/img are the served page's at 1280 px (the static page's are static.test.mjs's
  // and layout.test.mjs's).
  const shot = async name => { if (build === "served" && w === 1280) await page.screenshot({ path: join(shots, `explorer-${name}.png`), fullPage: name !== "progress" }); };
  before(async () => {
    width = w;
    page = await browser.newPage({ viewport: { width: w, height: w < 760 ? 844 : 1000 } });
    page.on("pageerror", e => { throw e; });
    await page.goto(url);
    await page.waitForFunction(() => window.explorerStats.ready, null, { timeout: 60000 });
  });
  after(async () => { await page?.close(); });

  test("the page knows where its pipelab runs", async () => {
    assert.equal(await page.evaluate(() => backend.kind), build === "static" ? "browser" : "server");
  });

  test("side by side: each schedule is simulate's, all on one time axis, saved as one PNG and one SVG", async () => {
    await page.selectOption("#source", "kind");
    await page.fill("#ranks", "4");
    await page.fill("#microbatches", "8");
    await page.fill("#chunks", "");
    await page.selectOption("#costmode", "explicit");
    for (const [f, v] of Object.entries({ fwd: "1", bwd: "2", wgrad: "1", comm: "0.1" })) await page.fill("#" + f, v);
    await page.click('#tabs [data-view="compare"]');
    await page.fill("#compare-kind", "1f1b,zb-h1,interleaved-1f1b");
    await page.evaluate(() => { window.explorerStats.side = null; });
    await page.click("#run-side");
    await page.waitForFunction(() => window.explorerStats.side, null, { timeout: 120000 });
    const side = await page.evaluate(() => window.explorerStats.side);
    const kinds = ["1f1b", "zb-h1", "interleaved-1f1b"];
    assert.deepEqual(side.map(s => s.kind), kinds);
    const makespans = kinds.map(k => cliJSON("simulate", "--kind", k, "--ranks", "4", "--microbatches", "8", "--fwd", "1", "--bwd", "2", "--wgrad", "1", "--comm", "0.1").makespan);
    side.forEach((s, i) => sameDigits(String(s.makespan), makespans[i], `${s.kind}'s makespan`));
    // Compute events: an F and a B per stage and microbatch (1f1b on P = 4 stages; interleaved-1f1b on
    // P × V = 8 stages, V = 2 its default), and F, I and W for zb-h1, which splits the backward.
    assert.deepEqual(side.map(s => s.events), [2 * 4 * 8, 3 * 4 * 8, 2 * 8 * 8]);
    // One axis: every chart's window is 0 to the longest makespan, and as wide.
    const axes = await page.evaluate(() => views.side.gantts.map(g => [g.t0, g.t1, g.plotWidth()]));
    const longest = Math.max(...side.map(s => s.makespan));
    for (const [t0, t1, w] of axes) {
      assert.equal(t0, 0);
      assert.ok(Math.abs(t1 - longest) <= 1e-9 * longest, `the axis ends at ${t1}, not at the longest makespan ${longest}`);
      assert.equal(w, axes[0][2]);
    }
    // Zooming one zooms all.
    await page.locator("#compare-gantts .gantt-tools [data-z=in]").first().click();
    await page.waitForFunction(() => views.side.gantts.every(g => g.t1 - g.t0 < g.span * 0.75));
    const windows = await page.evaluate(() => views.side.gantts.map(g => [g.t0, g.t1]));
    for (const w of windows) assert.deepEqual(w, windows[0]);
    await page.locator("#compare-gantts .gantt-tools [data-z=all]").first().click();
    await page.waitForFunction(() => views.side.gantts.every(g => g.t0 === 0 && g.t1 === g.span));
    // The stack saved: a PNG of the charts' heights plus a title line each, an SVG with a chart each.
    const [png] = await Promise.all([page.waitForEvent("download"), page.click('#compare-gantts > .chart-tools [data-export="png"]')]);
    const buf = readFileSync(await png.path());
    assert.equal(buf.subarray(1, 4).toString(), "PNG");
    const want = await page.evaluate(() => { const d = window.devicePixelRatio || 1; return [Math.max(...views.side.gantts.map(g => g.canvas.width)), views.side.gantts.reduce((h, g) => h + Math.round(20 * d) + g.canvas.height, 0)]; });
    assert.deepEqual([buf.readUInt32BE(16), buf.readUInt32BE(20)], want);
    const [svg] = await Promise.all([page.waitForEvent("download"), page.click('#compare-gantts > .chart-tools [data-export="svg"]')]);
    assert.equal(svg.suggestedFilename(), "side-by-side.svg");
    const doc = readFileSync(await svg.path(), "utf8");
    assert.match(doc, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.equal((doc.match(/<svg y="/g) || []).length, 3);
    assert.equal((doc.match(/<rect [^>]*><title>/g) || []).length, side.reduce((n, s) => n + s.events, 0));
    await fits();
    await shot("side-by-side");
    await page.click('#tabs [data-view="schedule"]');
  });

  test("typed per-stage times: priced as simulate --costs prices the same file", async () => {
    await page.selectOption("#source", "kind");
    await page.selectOption("#kind", "zb-h1");
    await page.fill("#ranks", "4");
    await page.fill("#microbatches", "8");
    await page.fill("#chunks", "");
    await page.selectOption("#costmode", "typed");
    await page.fill("#typed-stages", "4");
    // Stage s takes F = 10 + s, B = 12 + s, W = 5 and 0.5 ms to the next; the last stage sends nothing.
    const rows = [0, 1, 2, 3].map(s => [10 + s, 12 + s, 5, s < 3 ? 0.5 : ""]);
    for (let s = 0; s < 4; s++) {
      const tr = page.locator("#typed-costs tbody tr").nth(s);
      for (const [j, col] of ["fwd_ms", "bwd_ms", "wgrad_ms", "comm_ms"].entries()) if (rows[s][j] !== "") await tr.locator(`[data-col="${col}"]`).fill(String(rows[s][j]));
    }
    assert.equal(await page.locator('#typed-costs tbody tr:last-child [data-col="comm_ms"]').isDisabled(), true);
    const file = join(work, "typed-by-test.csv");
    writeFileSync(file, "stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n" + rows.map((r, s) => [s, ...r].join(",")).join("\n") + "\n");
    await page.evaluate(() => { window.explorerStats.schedule = null; });
    await page.click("#run-schedule");
    await page.waitForFunction(() => window.explorerStats.schedule || document.querySelector("#status-schedule.error"), null, { timeout: 60000 });
    const out = cli("simulate", "--kind", "zb-h1", "--ranks", "4", "--microbatches", "8", "--costs", file);
    assert.equal(await page.locator("#sched-makespan").innerText(), line(out, "makespan"));
    assert.equal(await page.locator("#sched-bubble").innerText(), line(out, "bubble ratio"));
    await fits();
    await shot("typed-costs");
    // Three stages typed for a four-stage table: the command line's error for that file, beside the table.
    await page.fill("#typed-stages", "3");
    await page.click("#run-schedule");
    await page.waitForSelector("#status-schedule.error");
    writeFileSync(join(work, "typed-costs.csv"), "stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n" + rows.slice(0, 3).map((r, s) => [s, ...r.slice(0, 3), s < 2 ? r[3] : ""].join(",")).join("\n") + "\n");
    const want = execFileSync("sh", ["-c", `cd "${work}" && "${bin}" simulate --kind zb-h1 --ranks 4 --microbatches 8 --costs typed-costs.csv 2>&1 || true`], { encoding: "utf8" }).split("\n")[0];
    assert.equal(await page.locator('#cost-typed [data-err="costs"]').innerText(), want);
    await page.fill("#typed-stages", "4");
    await page.selectOption("#costmode", "unit");
    await page.selectOption("#kind", "1f1b");
  });

  test("progress sign: the commands running, the queue, and Stop", async () => {
    await page.selectOption("#costmode", "unit");
    await page.click('#tabs [data-view="schedule"]');
    const slots = await page.evaluate(async () => (await (await apiFetch("/api/queue")).json()).slots);
    // One more long simulation than there are slots: one of them waits. Each would take seconds
    // (1000 jittered iterations of a 32 × 256 1f1b).
    const long = { flags: { kind: "1f1b", ranks: "32", microbatches: "256", jitter: "0.2", iterations: "1000" }, files: {} };
    await page.evaluate(([req, n]) => { window.longRuns = Array.from({ length: n }, () => api("simulate", req).then(() => "done", e => e.message)); }, [long, slots + 1]);
    await page.waitForSelector("#progress:not([hidden])");
    assert.match(await page.locator("#progress-text").innerText(), new RegExp(`^running ${build === "static" ? "in this browser" : "on the server"}: simulate \\d`));
    await page.waitForFunction(n => new RegExp(`queue: ${n} running, 1 waiting for ${n} slots?`).test(document.querySelector("#queue").textContent), slots, { timeout: 20000 });
    await fits();
    await shot("progress");
    const t0 = Date.now();
    await page.click("#progress-stop");
    const ends = await page.evaluate(() => Promise.all(window.longRuns));
    assert.deepEqual(ends, Array(slots + 1).fill("stopped"));
    await page.waitForSelector("#progress", { state: "hidden" });
    // What was stopped holds nothing up: the next simulation answers at once.
    await page.evaluate(() => { window.explorerStats.schedule = null; });
    await page.click("#run-schedule");
    await page.waitForFunction(() => window.explorerStats.schedule, null, { timeout: 60000 });
    assert.ok(Date.now() - t0 < 20000, `the page answered ${Date.now() - t0} ms after Stop`);
    assert.equal(await page.locator("#sched-makespan").innerText(), line(cli("simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8"), "makespan"));
  });
});
