// Browser test of the page of "mpiwatch analyze imbalance --html": Debian's
// chromium driven by playwright-core (executablePath, no browser download).
// Usage: node imbalance-view.mjs PAGE.html JSON SCREENSHOT.png [TAG PAGE JSON]...
// The first page gets the interaction checks (hover, drill-down); every page
// (the first one too) gets the reading checks of readPage() at 1280 px, and
// its screenshots go beside SCREENSHOT.png as page-TAG.png.
// Prints TAP lines; exits 1 if any check fails.
import { ok, done, launch, countPixels, diffPixels, pixelsWhere } from "./common.mjs";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";

const [page_path, json_path, shot_path, ...more] = process.argv.slice(2);
const R = JSON.parse(readFileSync(json_path, "utf8"));
const W = 1280, H = 800;
// Wait until the page has drawn n more frames (echarts draws in its own
// requestAnimationFrame loop): what a change of option shows is on screen.
const frames = (n = 3) => page.evaluate(n => new Promise(r => {
  const f = () => (--n <= 0 ? r() : requestAnimationFrame(f));
  requestAnimationFrame(f);
}), n);

const browser = await launch(["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]);
const page = await browser.newPage({ viewport: { width: W, height: H } });
const requests = [];
page.on("request", r => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) requests.push(r.url()); });
const errors = [];
page.on("pageerror", e => errors.push(String(e)));
page.on("console", m => { if (m.type() === "error") errors.push("console: " + m.text()); });
await page.goto(pathToFileURL(page_path).href);
await page.waitForFunction(() => window.mwState && window.mwState.ready, null, { timeout: 30000 });
await frames(); // let the WebGL scene render
ok(errors.length === 0, "the page runs without a JavaScript error " + errors.join("; "));
ok(JSON.stringify(await page.evaluate(() => window.mwState.rows)) ===
   JSON.stringify(R.groups.filter(g => g.level === 1 && g.max_us > 0).map(g => g.label)),
   "the first view shows the level-1 groups");

// Screenshot of the 3D view: not blank.
const shot = await page.locator("#view3d").screenshot({ path: shot_path });
const px = await countPixels(page, shot, { nonwhite: "return r < 240 || g < 240 || b < 240" });
ok(px.nonwhite > px.total * 0.02, `the 3D view is not blank (${px.nonwhite} of ${px.total} pixels drawn)`);

// Hover over the 3D view until a bar's tooltip appears; check its value.
// Only the points of the grid that the screenshot shows coloured (a bar,
// not the white ground, the grey grid lines or the dark text) are tried.
const box = await page.locator("#view3d").boundingBox();
const bar = new Set(await pixelsWhere(page, shot, "return Math.max(r, g, b) - Math.min(r, g, b) > 40"));
async function tooltip() {
  return page.evaluate(() => {
    for (const d of document.querySelectorAll("#view3d div"))
      if (d.style.display !== "none" && d.style.opacity !== "0" && /process /.test(d.textContent || ""))
        return d.innerText;
    return null;
  });
}
let tip = null, at = null;
for (let y = box.y + box.height * 0.25; y < box.y + box.height * 0.8 && !tip; y += 12)
  for (let x = box.x + box.width * 0.15; x < box.x + box.width * 0.85 && !tip; x += 12) {
    if (!bar.has(Math.round(y - box.y) * 100000 + Math.round(x - box.x))) continue;
    await page.mouse.move(x, y);
    await page.waitForTimeout(30);
    const t = await tooltip();
    if (t && /:\s*[0-9.]+ (s|ms|us)/.test(t)) { tip = t; at = { x, y }; }
  }
ok(tip !== null, "hovering a bar shows a tooltip: " + JSON.stringify(tip));
ok(tip && /similarity to \S.*: (\d\.\d\d|undefined)/.test(tip), "the tooltip shows the similarity beside the time");
let label = null;
if (tip) {
  const m = tip.match(/process (\S+)\s+(.+): ([0-9.]+) (s|ms|us)/);
  const g = m && R.groups.find(x => x.label === m[2]);
  const p = m && R.processes.indexOf(m[1]);
  const unit = m && { s: 1e6, ms: 1e3, us: 1 }[m[4]];
  ok(g && p >= 0 && Math.abs(parseFloat(m[3]) * unit - g.time_us[p]) <= 0.001 * unit + 1e-9,
     `the tooltip's value is the group's time for that process (${m && m[3]} ${m && m[4]})`);
  label = m && m[2];
}

// Click that level-1 bar: the view drills down to its level-2 groups.
if (at) {
  await page.mouse.click(at.x, at.y);
  await frames();
  const st = await page.evaluate(() => window.mwState);
  const g = R.groups.find(x => x.label === label);
  const kids = R.groups.filter(x => x.parent === (g && g.id) && x.max_us > 0).map(x => x.label);
  ok(g && st.parent === g.id && JSON.stringify(st.rows) === JSON.stringify(kids),
     `clicking the ${label} bar shows its level-2 groups ${JSON.stringify(st.rows)}`);
  await page.click("#back");
  await frames();
  ok((await page.evaluate(() => window.mwState.parent)) === "all", "Back returns to the level-1 groups");
} else {
  ok(false, "no bar found to click");
}
ok(requests.length === 0, "the page made no network request " + requests.join(" "));
await readPage(R, "tau4");
for (let i = 0; i + 2 < more.length + 1; i += 3) {
  const [tag, p, j] = more.slice(i, i + 3);
  errors.length = 0;
  await page.goto(pathToFileURL(p).href);
  await page.waitForFunction(() => window.mwState && window.mwState.ready, null, { timeout: 120000 });
  await frames();
  await readPage(JSON.parse(readFileSync(j, "utf8")), tag);
}
await browser.close();
done();

// What a reader checks on the page now open (analysis D, named tag): the
// findings on the first screen, the tables, the similarity, every row of
// the 3D view visible, readable axes, no error.
async function readPage(D, tag) {
  const at = `(${D.processes.length} processes)`;
  await page.evaluate(() => window.scrollTo(0, 0));
  const first = await page.screenshot({ path: `${dirname(shot_path)}/page-${tag}-first.png` });
  // the findings, on the first screen: the headline and the leading group's worst function
  const Fs = D.findings || [{ text: "(no findings in the JSON)" }];
  const want = [Fs[0], Fs.find(f => /worst function/.test(f.text))].filter(Boolean);
  for (const f of want) {
    const box = await page.evaluate(t => {
      for (const e of document.querySelectorAll("#findings *"))
        if (e.children.length === 0 && e.textContent.includes(t)) {
          const r = e.getBoundingClientRect();
          return { x: r.x, y: r.y, width: r.width, height: r.height };
        }
      return null;
    }, f.text.length > 60 ? f.text.slice(0, 60) : f.text);
    let dark = 0;
    if (box && box.y >= 0 && box.y + box.height <= H && box.width > 0) {
      const clip = await page.screenshot({ clip: box });
      dark = (await countPixels(page, clip, { dark: "return r < 110 && g < 110 && b < 110" })).dark;
    }
    ok(box && box.y + box.height <= H && dark > 20,
       `${at} the finding "${f.text.slice(0, 50)}..." is drawn on the first screen (${W}x${H}, ${dark} dark pixels at ${box && Math.round(box.y)} px)`);
  }
  // the tables: one row per group of each level and per function, with the similarity
  for (const [id, items, name, sim] of [
      ["table-l1", D.groups.filter(g => g.level === 1 && g.max_us > 0), g => g.label, g => g.similarity],
      ["table-l2", D.groups.filter(g => g.level === 2 && g.max_us > 0), g => g.label, g => g.similarity],
      ["table-fn", D.functions, f => f.name, f => f.similarity]]) {
    const t = await page.evaluate(id => {
      const tb = document.getElementById(id);
      if (!tb) return null;
      return { head: [...tb.querySelectorAll("thead th")].map(th => th.textContent.trim()),
               rows: [...tb.querySelectorAll("tbody tr")].map(tr => [...tr.cells].map(c => c.textContent.trim())) };
    }, id);
    const si = t ? t.head.findIndex(h => /^similarity/.test(h)) : -1;
    const good = t && si >= 0 && items.every(g => t.rows.some(r => r[0] === name(g) &&
        r[si] === (sim(g) === null ? "undefined" : sim(g).toFixed(2))));
    ok(good && ["mean", "max", "min", "COV", "max/mean", "worst rank"].every(h => t.head.some(x => x.startsWith(h))),
       `${at} the ${id} table lists every ${id === "table-fn" ? "function" : "group"} with mean, max, min, COV, max/mean, similarity and worst rank`);
  }
  // sortable: a click on "max/mean" orders the functions by it, largest first
  const sorted = await page.evaluate(() => {
    const tb = document.getElementById("table-fn");
    const th = tb && [...tb.querySelectorAll("thead th")].find(h => h.textContent.trim().startsWith("max/mean"));
    if (!th) return null;
    const i = [...th.parentNode.children].indexOf(th);
    th.click();
    let v = [...tb.querySelectorAll("tbody tr")].map(tr => parseFloat(tr.cells[i].textContent));
    if (v[0] < v[v.length - 1]) { th.click(); v = [...tb.querySelectorAll("tbody tr")].map(tr => parseFloat(tr.cells[i].textContent)); }
    return v;
  });
  ok(sorted && sorted.length === D.functions.length && sorted.every((x, k) => k === 0 || sorted[k - 1] >= x),
     `${at} clicking the max/mean heading sorts the functions by it`);
  // the 3D view: colour = similarity, with its legend
  const vm = await page.evaluate(() => {
    const o = window.mwCharts.c3.getOption();
    return o.visualMap && o.visualMap.map(v => ({ text: v.text, min: v.min, max: v.max }));
  });
  ok(vm && vm.some(v => JSON.stringify(v.text || "").includes("similar") && v.min === 0 && v.max === 1),
     `${at} the 3D view colours the bars by similarity (0..1) with a legend: ${JSON.stringify(vm)}`);
  // every row of the 3D view has visible pixels: remove it and see what changes,
  // at level 1 and at the functions of the group with the most of them
  const levels = [null];
  const byg = {};
  D.functions.forEach(f => { byg[f.group] = (byg[f.group] || 0) + 1; });
  const big = Object.keys(byg).sort((x, y) => byg[y] - byg[x])[0];
  if (big) levels.push(big);
  for (const lv of levels) {
    if (lv) {
      await page.evaluate(g => window.mwShow && window.mwShow(g), lv);
      await frames();
    }
    const st = await page.evaluate(() => window.mwState);
    const el = page.locator("#view3d");
    await el.scrollIntoViewIfNeeded();
    await frames();
    const base = await el.screenshot({ path: `${dirname(shot_path)}/page-${tag}-3d${lv ? "-" + lv : ""}.png` });
    const hidden = [];
    for (let i = 0; i < st.rows.length; i++) {
      // put back the row removed before (if any) and remove row i, in one redraw
      const saved = await page.evaluate(i => {
        const c = window.mwCharts.c3, s = c.getOption().series.find(x => x.id === "row" + i);
        const back = window.mwSaved ? [{ id: window.mwSaved.id, data: window.mwSaved.data }] : [];
        window.mwSaved = s ? { id: s.id, data: s.data } : null;
        c.setOption({ series: back.concat(s ? [{ id: s.id, data: [] }] : []) });
        return !!s;
      }, i);
      await frames();
      const without = await el.screenshot();
      const changed = saved ? await diffPixels(page, base, without) : 0;
      if (changed < 30) hidden.push(`${st.rows[i]} (${changed} px)`);
    }
    await page.evaluate(() => {
      if (window.mwSaved) window.mwCharts.c3.setOption({ series: [{ id: window.mwSaved.id, data: window.mwSaved.data }] });
      window.mwSaved = null;
    });
    await frames();
    ok(st.rows.length > 0 && hidden.length === 0,
       `${at} every row of the 3D view (${lv || "level 1"}: ${st.rows.length}) has visible bars; hidden: ${hidden.join(", ") || "none"}`);
    // the 3D view's axis labels (ticks and names of the three axes) where
    // they are drawn on the screen: none lies on another
    const lab = await page.evaluate(labels3d);
    const lover = [];
    for (let i = 0; i < lab.length; i++)
      for (let j = i + 1; j < lab.length; j++) {
        const a = lab[i], b = lab[j];
        if (a.x < b.x + b.w - 1 && b.x < a.x + a.w - 1 && a.y < b.y + b.h - 1 && b.y < a.y + a.h - 1)
          lover.push(`${a.axis} "${a.t}" / ${b.axis} "${b.t}"`);
      }
    ok(lab.length > st.rows.length && lover.length === 0,
       `${at} the 3D view's ${lab.length} axis labels (${lv || "level 1"}) are apart; overlapping: ${lover.join(", ") || "none"}`);
    if (lv) await page.evaluate(() => window.mwShow && window.mwShow("all"));
    await frames();
  }
  // the process axis: binned beyond what the width shows, and the page says so
  const bins = await page.evaluate(() => ({ bins: window.mwState.bins, note: (document.getElementById("binnote") || {}).textContent || "" }));
  ok(bins.bins > 0 && bins.bins <= 120 && (D.processes.length <= bins.bins ? bins.bins === D.processes.length
       : /mean of/.test(bins.note)),
     `${at} the 3D process axis has ${bins.bins} bars${D.processes.length > bins.bins ? ", binned, and the page says so: " + bins.note : ""}`);
  // the heatmap: no two texts overlap, none is cut by the edge (the axis title "process")
  const heat = await page.evaluate(() => {
    const c = window.mwCharts.ch, zr = c.getZr(), w = c.getWidth(), h = c.getHeight(), boxes = [];
    zr.storage.getDisplayList(true).forEach(e => {
      if ((e.type !== "text" && e.type !== "tspan") || e.invisible || !e.style || !e.style.text) return;
      const b = e.getBoundingRect().clone();
      e.updateTransform && e.updateTransform();
      if (e.transform) b.applyTransform(e.transform);
      boxes.push({ t: String(e.style.text), x: b.x, y: b.y, w: b.width, h: b.height });
    });
    const cut = boxes.filter(b => b.x < -1 || b.y < -1 || b.x + b.w > w + 1 || b.y + b.h > h + 1).map(b => b.t);
    const over = [];
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.x < b.x + b.w - 1 && b.x < a.x + a.w - 1 && a.y < b.y + b.h - 1 && b.y < a.y + a.h - 1) over.push(a.t + "/" + b.t);
      }
    return { n: boxes.length, cut, over: over.slice(0, 5), title: boxes.some(b => /^process/.test(b.t)) };
  });
  ok(heat.title && heat.cut.length === 0 && heat.over.length === 0,
     `${at} the heatmap's ${heat.n} labels are whole and apart (axis title "process": ${heat.title}; cut: ${JSON.stringify(heat.cut)}; overlapping: ${JSON.stringify(heat.over)})`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${dirname(shot_path)}/page-${tag}.jpg`, fullPage: true, type: "jpeg", quality: 70 });
  ok(errors.length === 0, `${at} no JavaScript or console error ${errors.join("; ")}`);
}

// The screen boxes (CSS px in the 3D chart) of the labels echarts-gl draws
// on the 3D view's axes, each {axis, t, x, y, w, h}: a label is a sprite of
// 4 vertices at one 3D point, moved on the screen by per-vertex pixel
// offsets, as its "ecgl.labels.vertex" shader draws it.  Runs in the page.
function labels3d() {
  const c = window.mwCharts.c3;
  const v = c._componentsViews.find(x => x && x._axes);
  const cam = v._control.getCamera();
  const vp = c.getModel().getComponent("grid3D").coordinateSystem.viewGL.viewport, dpr = vp.devicePixelRatio || 1;
  const mul = (m, x) => [0, 1, 2, 3].map(i => m[i] * x[0] + m[4 + i] * x[1] + m[8 + i] * x[2] + m[12 + i] * x[3]);
  const boxes = [];
  for (const ax of v._axes) {
    const g = ax.labelsMesh.geometry, P = g.attributes.position, O = g.attributes.offset;
    const texts = ax.labelElements.map(e => e.style.text);
    if (ax.nameLabelElement) texts[ax.nameLabelElement.__idx] = ax.nameLabelElement.style.text;
    for (let s = 0; s * 4 < g.vertexCount; s++) {
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      for (let k = 4 * s; k < 4 * s + 4; k++) {
        const p = mul(cam.projectionMatrix.array, mul(cam.viewMatrix.array,
                      mul(ax.labelsMesh.worldTransform.array, [...P.get(k, []), 1])));
        const o = O.get(k, []);
        const x = vp.x + ((p[0] / Math.abs(p[3]) + 1) * 0.5 * vp.width * dpr + o[0]) / dpr;
        const y = vp.y + vp.height - ((p[1] / Math.abs(p[3]) + 1) * 0.5 * vp.height * dpr + o[1]) / dpr;
        x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      }
      if (texts[s] !== undefined && texts[s] !== "")
        boxes.push({ axis: ax.dim, t: String(texts[s]), x: x0, y: y0, w: x1 - x0, h: y1 - y0 });
    }
  }
  return boxes;
}

