// The explorer's layouts in headless chromium (make test-browser): the first picture drawn without a
// click, the desktop layout at 1280 px and the phone layout at 390 px. Numbers on the page are
// compared with what the pipelab binary prints for the same flags (the page's defaults).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { cli, line } from "./cli.mjs";

const url = process.env.EXPLORER_URL, shots = process.env.SCREENSHOTS;
const build = process.env.BUILD || "served"; // "served" (pipelab serve) or "static" (make explorer-static)
const suffix = build === "static" ? "-static" : "";
let browser;

// open loads the page at a width and waits for its first picture.
async function open(width, height) {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on("pageerror", e => { throw e; });
  await page.goto(url);
  await page.waitForFunction(() => window.explorerStats.ready, null, { timeout: 30000 });
  return page;
}

before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-background-networking"] });
});
after(async () => { await browser?.close(); });

test("first load: the default schedule is drawn without a click", async () => {
  const page = await open(1280, 900);
  const stats = await page.evaluate(() => ({ ...window.explorerStats.schedule, firstPictureMs: window.explorerStats.firstPictureMs }));
  // The panel's defaults: 1f1b, P = 4, M = 8, unit costs; 1f1b has an F and a B per stage and microbatch.
  const out = cli("simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8");
  assert.equal(await page.locator("#sched-makespan").innerText(), line(out, "makespan"));
  assert.equal(stats.events, 2 * 4 * 8);
  assert.equal(await page.locator("#gantt-schedule canvas").count(), 2);
  console.log(`${build} page, 1280 px: first picture ${stats.firstPictureMs.toFixed(0)} ms after navigation began (simulate request ${stats.requestMs.toFixed(0)} ms, draw ${stats.drawMs.toFixed(1)} ms)`);
  await page.close();
});

test("desktop, 1280 px: the 300 px panel beside the views, no panel toggle", async () => {
  const page = await open(1280, 900);
  const aside = await page.locator("#setup").boundingBox(), view = await page.locator("#view-schedule").boundingBox();
  assert.equal(aside.width, 300);
  assert.ok(view.x >= aside.x + aside.width, `the view starts at ${view.x}, inside the panel`);
  assert.ok(view.width >= 900, `the view is ${view.width} px wide`);
  assert.equal(await page.locator("#panel-toggle").isVisible(), false);
  await page.close();
});

test("phone, 390 px: the panel stacks and folds, tables scroll, every button is reachable", async () => {
  const page = await open(390, 844);
  const aside = await page.locator("#setup").boundingBox(), view = await page.locator("#view-schedule").boundingBox();
  assert.ok(aside.width >= 380, `the panel is ${aside.width} px wide`);
  assert.ok(view.y >= aside.y + aside.height, "the view is below the panel");
  assert.ok(view.width >= 380, `the view is ${view.width} px wide`);
  // Nothing widens the page past the screen; wide content scrolls in its own frame.
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), "the page scrolls sideways");
  // The rank table scrolls sideways inside its frame, and its last column scrolls into view.
  const wrap = page.locator("#ranks-schedule");
  const sizes = await wrap.evaluate(el => ({ scroll: el.scrollWidth, client: el.clientWidth, overflow: getComputedStyle(el).overflowX }));
  assert.ok(sizes.scroll > sizes.client, `the table is ${sizes.scroll} px in a ${sizes.client} px frame`);
  assert.equal(sizes.overflow, "auto");
  const last = page.locator("#ranks-schedule tr").nth(1).locator("td").last();
  await last.scrollIntoViewIfNeeded();
  const cell = await last.boundingBox(), frame = await wrap.boundingBox();
  assert.ok(cell.x >= frame.x && cell.x + cell.width <= frame.x + frame.width + 1, "the last column scrolled into the frame");
  // The toggle folds the panel away and back.
  await page.click("#panel-toggle");
  assert.equal(await page.locator("#setup").isVisible(), false);
  assert.ok((await page.locator("#view-schedule").boundingBox()).y < view.y, "the view moves up when the panel folds");
  await page.click("#panel-toggle");
  assert.equal(await page.locator("#setup").isVisible(), true);
  // Every button of every view lies within the screen's width.
  for (const v of ["schedule", "compare", "ready", "staleness"]) {
    await page.click(`#tabs [data-view="${v}"]`);
    const boxes = await page.$$eval(`#view-${v} button`, bs => bs.filter(b => b.offsetParent).map(b => { const r = b.getBoundingClientRect(); return [b.id || b.textContent, r.left, r.right]; }));
    assert.ok(boxes.length > 0);
    for (const [name, left, right] of boxes) assert.ok(left >= 0 && right <= 390, `${v}: button ${name} spans ${left} to ${right}`);
  }
  // Delays, then Replay: both clicked (playwright clicks only what is visible, enabled and on top).
  // In the static build a command not in the browser's pipelab says that it needs pipelab serve.
  const answered = async (done, statusSel) => {
    await page.waitForFunction(([d, st]) => document.querySelector(d) || document.querySelector(st + ".error"), [done, statusSel], { timeout: 60000 });
    if (await page.locator(done).count()) return;
    const msg = await page.locator(statusSel).innerText();
    assert.ok(build === "static" && /^needs pipelab serve: /.test(msg), msg);
  };
  await page.click("#run-delays");
  await answered("#delays-max", "#status-delays");
  await page.fill("#train-microbatches", "400");
  await page.fill("#log-points", "10");
  await page.click("#run-train", { timeout: 5000 });
  await answered("#train-final-loss", "#status-train");
  await page.click('#tabs [data-view="schedule"]');
  await page.screenshot({ path: join(shots, `explorer-phone${suffix}.png`), fullPage: true });
  await page.close();
});
