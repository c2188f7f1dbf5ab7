// The explorer in headless chromium (make test-browser; test.sh starts the server). Every number
// checked here is read off the page and compared with what the pipelab binary prints for the same
// flags, in its text output where the page copies a printed column, else its JSON report.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { cli, cliJSON, cliError, line, sameDigits } from "./cli.mjs";

const url = process.env.EXPLORER_URL, bin = process.env.PIPELAB, shots = process.env.SCREENSHOTS, work = process.env.WORK;
const root = new URL("../..", import.meta.url).pathname;
let browser, page;

const text = sel => page.locator(sel).first().innerText();

async function setup({ kind = "1f1b", ranks = "4", microbatches = "8", chunks = "", cost = "unit", explicit = null } = {}) {
  await page.selectOption("#source", "kind");
  await page.selectOption("#kind", kind);
  await page.fill("#ranks", ranks);
  await page.fill("#microbatches", microbatches);
  await page.fill("#chunks", chunks);
  await page.selectOption("#costmode", cost);
  if (explicit) for (const [f, v] of Object.entries(explicit)) await page.fill("#" + f, v);
}

async function simulate(timeout = 30000) {
  await page.evaluate(() => { window.explorerStats.schedule = null; });
  await page.click("#run-schedule");
  await page.waitForFunction(() => window.explorerStats.schedule || document.querySelector("#status-schedule.error"), null, { timeout });
}

async function shot(name) {
  await page.screenshot({ path: join(shots, `explorer-${name}.png`), fullPage: true });
}

before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-background-networking"] });
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on("pageerror", e => { throw e; });
  await page.goto(url);
  await page.waitForFunction(() => window.explorerStats.ready);
});
after(async () => { await browser?.close(); });

test("schedule view: the summary and the rank table are simulate's", async () => {
  const flags = ["--kind", "interleaved-1f1b", "--ranks", "4", "--microbatches", "8", "--chunks", "2", "--fwd", "2", "--bwd", "3", "--wgrad", "1", "--comm", "0.5"];
  await setup({ kind: "interleaved-1f1b", chunks: "2", cost: "explicit", explicit: { fwd: "2", bwd: "3", wgrad: "1", comm: "0.5" } });
  await simulate();
  const out = cli("simulate", ...flags);
  assert.equal(await text("#sched-makespan"), line(out, "makespan"));
  assert.equal(await text("#sched-bubble"), line(out, "bubble ratio"));
  assert.equal(await text("#sched-steps"), line(out, "lockstep steps"));
  assert.equal(await text("#sched-transfers"), line(out, "messages"));
  // The rank table, cell by cell, against simulate's printed table.
  const printed = out.split("\n").filter(l => /^\s+\d+\s/.test(l)).map(l => l.trim().split(/\s+/).slice(0, 6));
  const shown = await page.$$eval("#ranks-schedule tr", rows => rows.slice(1).map(r => [...r.cells].slice(0, 6).map(c => c.innerText)));
  assert.deepEqual(shown, printed);
  // The activation curve is recomputed on the page from the timeline; its peak is simulate's.
  const rep = cliJSON("simulate", ...flags);
  const peak = Math.max(...rep.per_rank.map(r => r.peak_activations));
  assert.equal(Number(await text("#mem-peak-page")), peak);
  // Hover: the tooltip names the action under the pointer and its times.
  const box = await page.locator("#gantt-schedule canvas").nth(1).boundingBox();
  await page.mouse.move(box.x + 70, box.y + 12);
  const tip = await text("#tooltip");
  assert.match(tip, /^\d+F0 {2}\(rank 0\)\nF of stage 0, microbatch 0\nstart 0 {2}end 1 /);
  await shot("schedule");
});

test("schedule view: GPU model presets give simulate's numbers", async () => {
  await setup({ kind: "zb-v", ranks: "4", microbatches: "8", cost: "gpu" });
  await page.selectOption("#model", "gpt-1.3b");
  await page.selectOption("#gpu", "a100");
  await page.selectOption("#link", "nvlink");
  await simulate();
  const out = cli("simulate", "--kind", "zb-v", "--ranks", "4", "--microbatches", "8", "--model", "gpt-1.3b", "--gpu", "a100", "--link", "nvlink");
  assert.equal(await text("#sched-makespan"), line(out, "makespan"));
  assert.equal(await text("#sched-bubble"), line(out, "bubble ratio"));
  const peakMem = out.split("\n").filter(l => /^\s+\d+\s/.test(l)).map(l => l.match(/(\d+\.\d\d GB)/)[1]);
  const shown = await page.$$eval("#ranks-schedule tr", rows => rows.slice(1).map(r => r.cells[6].innerText));
  assert.deepEqual(shown, peakMem);
});

test("schedule view: a cluster's step (tensor × pipeline × data) is simulate's, its error beside its field", async () => {
  await setup({ kind: "1f1b", ranks: "4", microbatches: "8", cost: "gpu" });
  await page.selectOption("#model", "gpt-1.3b");
  await page.selectOption("#gpu", "a100");
  await page.selectOption("#link", "ib-hdr");
  await page.click("#cluster summary");
  await page.fill("#tp", "2");
  await page.fill("#dp", "4");
  await page.fill("#gpus-per-node", "8");
  await page.selectOption("#node-link", "nvlink3");
  await page.selectOption("#recompute", "selective");
  await page.check("#sequence-parallel");
  await page.check("#distributed-optimizer");
  await page.check("#overlap-grad-reduce");
  await simulate();
  const flags = tp => ["simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--model", "gpt-1.3b", "--gpu", "a100", "--link", "ib-hdr",
    "--tp", tp, "--dp", "4", "--gpus-per-node", "8", "--node-link", "nvlink3", "--recompute", "selective", "--sequence-parallel",
    "--distributed-optimizer", "--overlap-grad-reduce"];
  const out = cli(...flags("2"));
  assert.equal(await text("#sched-makespan"), line(out, "makespan"));
  const rep = cliJSON(...flags("2"));
  sameDigits(await text("#sched-iteration"), rep.iteration_seconds, "the whole step");
  assert.equal(rep.gpus, 2 * 4 * 4); // T · P · D
  assert.ok((await text("#sched-flops")).endsWith(` on ${rep.gpus} GPUs`));
  const flops = Number((await text("#sched-flops")).split(" ")[0]); // four significant digits
  assert.ok(Math.abs(flops - rep.model_flops_per_gpu) <= 5e-4 * rep.model_flops_per_gpu, `page ${flops}, command line ${rep.model_flops_per_gpu}`);
  // A tensor-parallel size that does not divide a node's GPUs: the command line's words beside the field.
  await page.fill("#tp", "3");
  await simulate();
  assert.equal(await text('#setup [data-err="tp"]'), cliError(...flags("3")));
  assert.equal(await page.locator("#tp.bad").count(), 1);
  // Back to one GPU a rank, for the tests after this one, and an MoE model with its experts spread.
  for (const f of ["tp", "dp", "gpus-per-node"]) await page.fill("#" + f, "");
  await page.selectOption("#node-link", "");
  await page.selectOption("#recompute", "none");
  for (const f of ["sequence-parallel", "distributed-optimizer", "overlap-grad-reduce"]) await page.uncheck("#" + f);
  await page.selectOption("#model", "deepseek-moe-16b");
  await page.fill("#expert-parallel", "4");
  await simulate();
  const moe = ["simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--model", "deepseek-moe-16b", "--gpu", "a100", "--link", "ib-hdr"];
  assert.equal(await text("#sched-makespan"), line(cli(...moe, "--expert-parallel", "4"), "makespan"));
  assert.notEqual(await text("#sched-makespan"), line(cli(...moe), "makespan"));
  await page.fill("#expert-parallel", "");
  await page.selectOption("#model", "gpt-1.3b");
  await page.click("#cluster summary");
});

test("post-validation: the schedule view's step and tune's ranking are the command line's", async () => {
  await setup({ kind: "zb-auto", ranks: "4", microbatches: "8", cost: "gpu" });
  await page.selectOption("#model", "gpt-1.3b");
  await page.selectOption("#gpu", "a100");
  await page.selectOption("#link", "nvlink");
  await page.check("#post-validation");
  await simulate();
  const base = ["--ranks", "4", "--microbatches", "8", "--model", "gpt-1.3b", "--gpu", "a100", "--link", "nvlink", "--post-validation"];
  const rep = cliJSON("simulate", "--kind", "zb-auto", ...base);
  assert.equal(rep.post_validation, true);
  sameDigits(await text("#sched-makespan"), rep.makespan, "makespan");
  sameDigits(await text("#sched-iteration"), rep.iteration_seconds, "the post-validated step");
  await page.uncheck("#post-validation");
  await page.click('#tabs [data-view="ready"]');
  await page.fill("#tune-kind", "1f1b,zb-h2");
  await page.check("#tune-post-validation");
  await page.evaluate(() => { document.querySelector("#tune-result").innerHTML = ""; });
  await page.click("#run-tune");
  await page.waitForSelector("#tune-per-sample", { timeout: 120000 });
  const tuned = cliJSON("tune", "--kind", "1f1b,zb-h2", ...base);
  sameDigits(await text("#tune-per-sample"), tuned.tuned_per_sample, "tuned time per sample, by the longest rank span");
  await page.uncheck("#tune-post-validation");
  await page.fill("#tune-kind", "");
  await page.click('#tabs [data-view="schedule"]');
});

test("files: a hardware file prices until a preset is picked or it is cleared", async () => {
  await setup({ kind: "zb-v", ranks: "4", microbatches: "8", cost: "gpu" });
  await page.selectOption("#model", "gpt-1.3b");
  await page.selectOption("#gpu", "h100");
  await page.selectOption("#link", "ib-ndr");
  const hw = join(root, "examples/hardware/selene-a100.yaml");
  const base = ["simulate", "--kind", "zb-v", "--ranks", "4", "--microbatches", "8", "--model", "gpt-1.3b"];
  const withFile = line(cli(...base, "--hardware", hw), "makespan");
  const a100 = line(cli(...base, "--gpu", "a100", "--link", "nvlink"), "makespan");
  assert.notEqual(withFile, a100);
  await page.setInputFiles("#hardware", hw);
  await page.waitForSelector('#files [data-file="hardware"] button');
  await simulate();
  assert.equal(await text("#sched-makespan"), withFile);
  // Back to the presets: picking a GPU and a link drops the file.
  await page.selectOption("#gpu", "a100");
  await page.selectOption("#link", "nvlink");
  assert.equal(await page.locator('#files [data-file="hardware"]').count(), 0);
  await simulate();
  assert.equal(await text("#sched-makespan"), a100);
  // The clear button: the file is listed, then gone, and the presets price again.
  await page.setInputFiles("#hardware", hw);
  await page.waitForSelector('#files [data-file="hardware"] button');
  assert.match(await text('#files [data-file="hardware"]'), /selene-a100\.yaml/);
  await page.click('#files [data-clear="hardware"]');
  assert.equal(await page.locator("#files [data-file]").count(), 0);
  assert.equal(await page.inputValue("#hardware"), "");
  await simulate();
  assert.equal(await text("#sched-makespan"), a100);
  // A bad hardware file: the server's 422, beside the hardware field.
  const bad = join(work, "bad-hardware.yaml");
  writeFileSync(bad, "gpu:\n  name: x\n  peak_flops: -1\n");
  await page.setInputFiles("#hardware", bad);
  await page.waitForSelector('#files [data-file="hardware"]');
  await simulate();
  const want = execFileSync("sh", ["-c", `cd "${work}" && "${bin}" ${base.join(" ")} --hardware bad-hardware.yaml 2>&1 || true`], { encoding: "utf8" }).split("\n")[0];
  assert.equal(await text('#setup [data-err="hardware"]'), want);
  await page.click('#files [data-clear="hardware"]');
});

test("bad input: the command line's error beside the field", async () => {
  await setup({ ranks: "0" });
  await simulate();
  const want = cliError("simulate", "--kind", "1f1b", "--ranks", "0", "--microbatches", "8");
  assert.equal(await text('#setup [data-err="ranks"]'), want);
  assert.equal(await page.locator("#ranks.bad").count(), 1);
  await setup({ cost: "explicit", explicit: { fwd: "-1", bwd: "1", wgrad: "1", comm: "0" } });
  await simulate();
  const want2 = cliError("simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--bwd", "1", "--comm", "0", "--fwd", "-1", "--wgrad", "1");
  assert.equal(await text('#setup [data-err="fwd"]'), want2);
  await shot("error");
  await setup();
});

test("a PyTorch CSV dropped on the page is simulated as simulate --schedule", async () => {
  const csv = cli("schedule", "--kind", "zb-h1", "--ranks", "4", "--microbatches", "8", "--format", "csv");
  const path = join(work, "dropped.csv");
  writeFileSync(path, csv);
  await page.evaluate(() => { window.explorerStats.schedule = null; });
  const dt = await page.evaluateHandle(t => { const d = new DataTransfer(); d.items.add(new File([t], "dropped.csv", { type: "text/csv" })); return d; }, csv);
  await page.dispatchEvent("body", "drop", { dataTransfer: dt });
  await page.waitForFunction(() => window.explorerStats.schedule);
  const out = cli("simulate", "--schedule", path);
  assert.equal(await text("#sched-makespan"), line(out, "makespan"));
  assert.equal(await text("#sched-bubble"), line(out, "bubble ratio"));
  assert.match(await text("#csv-name"), /^dropped\.csv/);
  // A malformed file: the command line's error, naming the file and the line.
  const bad = csv.replace("0F1", "0Q1");
  writeFileSync(join(work, "bad.csv"), bad);
  const dt2 = await page.evaluateHandle(t => { const d = new DataTransfer(); d.items.add(new File([t], "bad.csv", { type: "text/csv" })); return d; }, bad);
  await page.dispatchEvent("body", "drop", { dataTransfer: dt2 });
  await page.waitForFunction(() => document.querySelector("#status-schedule.error"));
  const want = execFileSync("sh", ["-c", `cd "${work}" && "${bin}" simulate --schedule bad.csv 2>&1 || true`], { encoding: "utf8" }).split("\n")[0];
  assert.equal(await text('[data-err="schedule"]'), want);
  await page.selectOption("#source", "kind");
});

test("compare with a dropped CSV says that compare takes families, and sends nothing", async () => {
  await page.selectOption("#source", "csv");
  await page.click('#tabs [data-view="compare"]');
  const sent = [];
  const watch = r => { if (/\/api\/(download\/)?compare/.test(r.url())) sent.push(r); };
  page.on("request", watch);
  await page.click("#run-compare");
  await page.waitForSelector("#status-compare.error");
  assert.match(await text("#status-compare"), /^compare takes generated families/);
  assert.match(await text('#view-compare [data-err="kind"]'), /^compare takes generated families/);
  // Its downloads too.
  await page.evaluate(() => { document.querySelector("#status-compare").textContent = ""; });
  await page.click('[data-download="compare.txt"]');
  await page.waitForFunction(() => /^compare takes generated families/.test(document.querySelector("#status-compare").textContent));
  page.off("request", watch);
  assert.equal(sent.length, 0);
  await page.selectOption("#source", "kind");
  await page.click('#tabs [data-view="schedule"]');
});

test("Gantt: a legend of the kinds drawn, and a rank's chunks in distinct shades", async () => {
  await setup({ kind: "interleaved-1f1b", ranks: "4", microbatches: "8", chunks: "2" });
  await simulate();
  // interleaved-1f1b has F and B (B with the weight gradient), so the legend names F and B.
  assert.deepEqual(await page.$$eval("#gantt-schedule .gantt-legend [data-kind]", s => s.map(x => x.dataset.kind)), ["F", "B"]);
  assert.match(await text("#gantt-schedule .gantt-legend .chunks"), /chunks:\s*0\s*1/);
  // Rank 0 holds stages 0 and 4 (V = 2 on P = 4): the middle of its first F of each stage, read off
  // the canvas, is F's colour #3b7dd8 for chunk 0 and that colour a quarter of the way to white for
  // chunk 1 (each channel c + (255 − c)/4, rounded).
  const px = await page.evaluate(() => {
    const g = views.gantt, c = g.tl.compute, ctx = g.canvas.getContext("2d"), dpr = window.devicePixelRatio || 1;
    const at = st => { const i = c.stage.findIndex((s, j) => s === st && c.rank[j] === 0 && c.kind[j] === "F");
      const d = ctx.getImageData(Math.round((g.x(c.start[i]) + g.x(c.end[i])) / 2 * dpr), Math.round((g.top + g.rowH / 2) * dpr), 1, 1).data; return [d[0], d[1], d[2]]; };
    return [at(0), at(4)];
  });
  const chunk1 = [0x3b, 0x7d, 0xd8].map(v => Math.round(v + (255 - v) * 0.25));
  assert.deepEqual(px, [[0x3b, 0x7d, 0xd8], chunk1]);
});

test("export: the Gantt as PNG and SVG", async () => {
  await setup({ kind: "1f1b", ranks: "4", microbatches: "8" });
  await simulate();
  const [png] = await Promise.all([page.waitForEvent("download"), page.click('#gantt-schedule [data-export="png"]')]);
  const buf = readFileSync(await png.path());
  assert.equal(buf.subarray(1, 4).toString(), "PNG");
  const size = await page.evaluate(() => [views.gantt.canvas.width, views.gantt.canvas.height]);
  assert.deepEqual([buf.readUInt32BE(16), buf.readUInt32BE(20)], size); // IHDR: width, height
  const [svg] = await Promise.all([page.waitForEvent("download"), page.click('#gantt-schedule [data-export="svg"]')]);
  const doc = readFileSync(await svg.path(), "utf8");
  assert.equal(svg.suggestedFilename(), "schedule.svg");
  assert.match(doc, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  // One titled rect per compute event: 1f1b has an F and a B per stage and microbatch, 2 × 4 × 8.
  assert.equal((doc.match(/<rect [^>]*><title>/g) || []).length, 2 * 4 * 8);
  assert.equal((doc.match(/>rank \d<\/text>/g) || []).length, 4);
});

test("downloads: the PyTorch CSV and the Chrome trace are the command line's files", async () => {
  await setup({ kind: "1f1b", ranks: "4", microbatches: "8" });
  const [dl] = await Promise.all([page.waitForEvent("download"), page.click('[data-download="csv"]')]);
  const got = readFileSync(await dl.path(), "utf8");
  assert.equal(got, cli("schedule", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--format", "csv"));
  const [tr] = await Promise.all([page.waitForEvent("download"), page.click('[data-download="trace"]')]);
  const trace = join(work, "cli-trace.json");
  cli("simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--trace", trace);
  assert.equal(readFileSync(await tr.path(), "utf8"), readFileSync(trace, "utf8"));
});

test("compare view: the three levels are pipelab compare's", async () => {
  await setup({ ranks: "4", microbatches: "8", cost: "explicit", explicit: { fwd: "1", bwd: "2", wgrad: "1", comm: "0.1" } });
  await page.click('#tabs [data-view="compare"]');
  await page.evaluate(() => { window.explorerStats.side = null; });
  await page.click("#run-compare");
  await page.waitForSelector("#compare-table table");
  // Compare draws the families side by side too (features.test.mjs checks them).
  await page.waitForFunction(() => window.explorerStats.side, null, { timeout: 60000 });
  const out = cli("compare", "--ranks", "4", "--microbatches", "8", "--fwd", "1", "--bwd", "2", "--wgrad", "1", "--comm", "0.1");
  const printed = out.split("\n").filter(l => /#\d/.test(l)).map(l => {
    const m = l.match(/^(\S+)(?: \(V=\d+\))?\s+(n\/a|\S+ #\d+)\s+(n\/a|\S+ #\d+)\s+(\S+ #\d+)\s+(\S+)/);
    return [m[1], m[2], m[3], m[4], m[5]];
  });
  const shown = await page.$$eval("#compare-table tr[data-kind]", rows => rows.map(r => {
    const c = [...r.cells].map(x => x.innerText);
    const level = (v, k) => v === "n/a" ? "n/a" : `${v} #${k}`;
    return [r.dataset.kind, level(c[1], c[2]), level(c[3], c[4]), level(c[5], c[6]), c[7]];
  }));
  assert.ok(printed.length >= 5);
  assert.deepEqual(shown, printed);
  await shot("compare");
});

test("readiness view: fixed and ready with jitter are simulate's", async () => {
  await setup({ kind: "zb-h1", ranks: "4", microbatches: "8" });
  await page.click('#tabs [data-view="ready"]');
  await page.selectOption("#hint", "bfw");
  await page.fill("#jitter", "0.3");
  await page.fill("#iterations", "10");
  await page.fill("#seed", "3");
  await page.click("#run-ready");
  await page.waitForSelector("#ready-ready-mean");
  const base = ["simulate", "--kind", "zb-h1", "--ranks", "4", "--microbatches", "8", "--jitter", "0.3", "--comm-jitter", "0", "--iterations", "10", "--seed", "3"];
  const fixed = cli(...base), ready = cli(...base, "--policy", "ready", "--hint", "bfw");
  assert.equal(await text("#ready-fixed-makespan"), line(fixed, "makespan").split(" ")[0]);
  assert.equal(await text("#ready-ready-makespan"), line(ready, "makespan").split(" ")[0]);
  const mean = s => line(s, "iterations").match(/mean (\S+), spread (\S+)/);
  assert.equal(await text("#ready-ready-mean"), `${mean(ready)[1]} ± ${mean(ready)[2]}`);
  assert.equal(await text("#ready-fixed-mean"), `${mean(fixed)[1]} ± ${mean(fixed)[2]}`);
});

test("tune: the choice is pipelab tune's", async () => {
  await setup({ ranks: "2", microbatches: "4", cost: "gpu" });
  await page.click('#tabs [data-view="ready"]');
  await page.selectOption("#model", "gpt-1.3b");
  await page.selectOption("#gpu", "h100");
  await page.selectOption("#link", "ib-ndr");
  await page.fill("#tune-kind", "1f1b,zb-h1");
  await page.click("#run-tune");
  await page.waitForSelector("#tune-makespan");
  const rep = cliJSON("tune", "--ranks", "2", "--microbatches", "4", "--model", "gpt-1.3b", "--gpu", "h100", "--link", "ib-ndr", "--microbatch-size", "1", "--seq-len", "2048", "--kind", "1f1b,zb-h1");
  sameDigits(await text("#tune-makespan"), rep.tuned_makespan, "tuned makespan");
  sameDigits(await text("#tune-speedup"), rep.speedup, "speed-up");
  // The readiness runs again under the same GPU model, for the screenshot.
  await page.fill("#ranks", "4");
  await page.fill("#microbatches", "8");
  await page.evaluate(() => { document.querySelector("#status-ready").textContent = ""; });
  await page.click("#run-ready");
  await page.waitForFunction(() => /^iteration 1/.test(document.querySelector("#status-ready").textContent));
  await shot("ready-tune");
  // "Simulate the choice": simulate with the tuned kind, microbatches and partition gives the tuned makespan.
  await page.fill("#ranks", "2");
  await page.fill("#microbatches", "4");
  await page.evaluate(() => { window.explorerStats.schedule = null; });
  await page.click("#tune-open");
  await page.waitForFunction(() => window.explorerStats.schedule);
  sameDigits(await text("#sched-makespan"), rep.tuned_makespan, "the tuned choice simulated");
  await page.fill("#partition", "");
});

test("staleness view: delays and a streamed replay are the command line's", async () => {
  await setup({ kind: "1f1b", ranks: "4", microbatches: "8" });
  await page.click('#tabs [data-view="staleness"]');
  await page.click("#run-delays");
  await page.waitForSelector("#delays-max");
  const d = cliJSON("delays", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8");
  sameDigits(await text("#delays-max"), d.max, "max delay");
  sameDigits(await text("#delays-mean"), d.mean, "mean delay");
  await page.selectOption("#objective", "quadratic");
  await page.selectOption("#method", "pipedream");
  await page.selectOption("#optimizer", "sgd");
  await page.fill("#step-size", "0.01");
  await page.fill("#train-microbatches", "2000");
  await page.fill("#log-points", "100");
  await page.evaluate(() => { window.explorerStats.train = null; });
  await page.click("#run-train");
  await page.waitForFunction(() => window.explorerStats.train, null, { timeout: 120000 });
  const rep = cliJSON("train", "--objective", "quadratic", "--method", "pipedream", "--optimizer", "sgd", "--step-size", "0.01",
    "--kind", "1f1b", "--stages", "4", "--total-microbatches", "2000", "--log-points", "100");
  sameDigits(await text("#train-final-loss"), rep.final_loss, "final loss");
  const streamed = await page.evaluate(() => window.explorerStats.train.curve.length);
  assert.equal(streamed, rep.curve.length);
  assert.match(await text("#status-train"), new RegExp(`^done: ${rep.curve.length} records streamed`));
  await shot("staleness");
  // A replay's 422 names --stages, which the page sets from the panel's ranks P: shown beside it.
  await page.fill("#ranks", "0");
  await page.click("#run-train");
  await page.waitForSelector("#status-train.error");
  const want = cliError("train", "--objective", "quadratic", "--method", "pipedream", "--optimizer", "sgd", "--kind", "1f1b", "--stages", "0", "--total-microbatches", "2000");
  assert.equal(await text('#setup [data-err="ranks"]'), want);
  assert.equal(await page.locator("#ranks.bad").count(), 1);
  await page.fill("#ranks", "4");
  // A long replay, stopped after its first records.
  await page.fill("#train-microbatches", "200000");
  await page.click("#run-train");
  await page.waitForFunction(() => /^[2-9] records|^\d{2,} records/.test(document.querySelector("#status-train").textContent), null, { timeout: 120000 });
  await page.click("#stop-train");
  await page.waitForFunction(() => /^stopped after/.test(document.querySelector("#status-train").textContent));
  // The server answers the next request once the replay has stopped (it runs one at a time).
  const t0 = Date.now();
  await page.click("#run-delays");
  await page.waitForFunction(() => document.querySelector("#status-delays").textContent === "");
  assert.ok(Date.now() - t0 < 20000, "the stopped replay held the server for " + (Date.now() - t0) + " ms");
});

test("loss chart: x ticks on simulated time, the validation curve, PNG and SVG", async () => {
  await setup({ kind: "1f1b", ranks: "4", microbatches: "8" });
  await page.click('#tabs [data-view="staleness"]');
  await page.selectOption("#objective", "charlm");
  await page.selectOption("#method", "pipedream");
  await page.selectOption("#optimizer", "adam");
  await page.fill("#step-size", "0.01");
  await page.fill("#train-microbatches", "40");
  await page.fill("#log-points", "4");
  await page.evaluate(() => { window.explorerStats.train = null; });
  await page.click("#run-train");
  await page.waitForFunction(() => window.explorerStats.train, null, { timeout: 120000 });
  const rep = cliJSON("train", "--objective", "charlm", "--method", "pipedream", "--optimizer", "adam", "--step-size", "0.01",
    "--kind", "1f1b", "--stages", "4", "--total-microbatches", "40", "--log-points", "4");
  const valid = rep.curve.filter(p => p.validation_loss !== null);
  assert.ok(valid.length > 0, "charlm reports a validation loss");
  assert.deepEqual(await page.$$eval("#loss-legend [data-curve]", s => s.map(x => x.dataset.curve)), ["training loss", "validation loss"]);
  const [svg] = await Promise.all([page.waitForEvent("download"), page.click('#train-chart [data-export="svg"]')]);
  const doc = readFileSync(await svg.path(), "utf8");
  const points = name => doc.match(new RegExp(`points="([^"]*)"><title>${name}<`))[1].split(" ").map(p => p.split(",").map(Number));
  const train = points("training loss"), val = points("validation loss");
  assert.equal(train.length, rep.curve.length);
  assert.equal(val.length, valid.length);
  // The x ticks: evenly spaced from 0 up to the run's last simulated time (the command line's), each
  // at its share of the way from the curve's first point (time 0) to its last (the last time).
  const tmax = rep.curve.at(-1).sim_time, x0 = train[0][0], xN = train.at(-1)[0];
  const ticks = [...doc.matchAll(/<text x="([\d.]+)" y="[\d.]+" text-anchor="middle">([\d.e+-]+)<\/text>/g)].map(m => [Number(m[1]), Number(m[2])]);
  assert.ok(ticks.length >= 3, `${ticks.length} x ticks`);
  const step = ticks[1][1] - ticks[0][1];
  assert.equal(ticks[0][1], 0);
  ticks.forEach(([x, t], i) => {
    assert.ok(Math.abs(t - i * step) <= 1e-9 * tmax, `tick ${i} is ${t}, not ${i} × ${step}`);
    assert.ok(Math.abs(x - (x0 + t / tmax * (xN - x0))) < 0.02, `tick ${t} at x ${x}`);
  });
  assert.ok(ticks.at(-1)[1] <= tmax && ticks.at(-1)[1] + step > tmax);
  const [png] = await Promise.all([page.waitForEvent("download"), page.click('#train-chart [data-export="png"]')]);
  assert.equal(readFileSync(await png.path()).subarray(1, 4).toString(), "PNG");
  assert.equal(png.suggestedFilename(), "loss.png");
  await page.selectOption("#objective", "quadratic");
  await page.selectOption("#optimizer", "sgd");
});

test("64 ranks × 1024 microbatches: first paint and hover latency", async () => {
  await setup({ kind: "1f1b", ranks: "64", microbatches: "1024" });
  await page.click('#tabs [data-view="schedule"]');
  await simulate(300000);
  const stats = await page.evaluate(() => window.explorerStats.schedule);
  const out = cli("simulate", "--kind", "1f1b", "--ranks", "64", "--microbatches", "1024");
  assert.equal(await text("#sched-makespan"), line(out, "makespan"));
  assert.equal(stats.events, 2 * 64 * 1024);
  // Hovers: the handler's own time (window.explorerStats.hover, measured in the page) and the
  // round trip of a mouse move to the tooltip's text as the test sees it.
  const box = await page.locator("#gantt-schedule canvas").nth(1).boundingBox();
  await page.evaluate(() => { window.explorerStats.hover = []; });
  const trips = [];
  for (let i = 0; i < 60; i++) {
    const x = box.x + 60 + (i * 37) % (box.width - 70), y = box.y + 6 + (i * 53) % (box.height - 40);
    const t0 = performance.now();
    await page.mouse.move(x, y);
    await page.evaluate(() => new Promise(r => requestAnimationFrame(() => r())));
    trips.push(performance.now() - t0);
  }
  const handler = await page.evaluate(() => window.explorerStats.hover);
  const med = a => [...a].sort((p, q) => p - q)[Math.floor(a.length / 2)];
  const p95 = a => [...a].sort((p, q) => p - q)[Math.floor(a.length * 0.95)];
  // Zoomed in 8 times the frame stays quick.
  for (let i = 0; i < 3; i++) await page.click(".gantt-tools [data-z=in]");
  await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  const zoomDraw = await page.evaluate(() => views.gantt.lastDrawMs);
  console.log(`64×1024 1f1b (${stats.events} compute events): request ${stats.requestMs.toFixed(0)} ms, ` +
    `first draw ${stats.drawMs.toFixed(1)} ms, first paint ${stats.firstPaintMs.toFixed(0)} ms after the click; ` +
    `hover handler median ${med(handler).toFixed(2)} ms, p95 ${p95(handler).toFixed(2)} ms (${handler.length} hovers); ` +
    `hover round trip median ${med(trips).toFixed(1)} ms, p95 ${p95(trips).toFixed(1)} ms; zoomed redraw ${zoomDraw.toFixed(1)} ms`);
  assert.ok(handler.length >= 60);
  assert.ok(med(handler) < 16, `a hover takes ${med(handler)} ms, more than a frame`);
  assert.ok(stats.drawMs < 1000, `the first draw took ${stats.drawMs} ms`);
  await page.click(".gantt-tools [data-z=all]");
  await page.mouse.move(box.x + 300, box.y + 200);
  await shot("large");
});
