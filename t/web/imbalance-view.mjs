// Browser test of the page of "mpiwatch analyze imbalance --html": Debian's
// chromium driven by playwright-core (executablePath, no browser download).
// Usage: node imbalance-view.mjs PAGE.html JSON SCREENSHOT.png
// Prints TAP lines; exits 1 if any check fails.
import { ok, done, launch, countPixels } from "./common.mjs";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [page_path, json_path, shot_path] = process.argv.slice(2);
const R = JSON.parse(readFileSync(json_path, "utf8"));

const browser = await launch(["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]);
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const requests = [];
page.on("request", r => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) requests.push(r.url()); });
const errors = [];
page.on("pageerror", e => errors.push(String(e)));
await page.goto(pathToFileURL(page_path).href);
await page.waitForFunction(() => window.mwState && window.mwState.ready, null, { timeout: 30000 });
await page.waitForTimeout(1500); // let the WebGL scene render
ok(errors.length === 0, "the page runs without a JavaScript error " + errors.join("; "));
ok(JSON.stringify(await page.evaluate(() => window.mwState.rows)) ===
   JSON.stringify(R.groups.filter(g => g.level === 1 && g.max_us > 0).map(g => g.label)),
   "the first view shows the level-1 groups");

// Screenshot of the 3D view: not blank, with the groups' bar colours.
const shot = await page.locator("#view3d").screenshot({ path: shot_path });
const px = await countPixels(page, shot, {
  nonwhite: "return r < 240 || g < 240 || b < 240",
  blue: "return b > r + 40 && b > g + 10",    // computation #4e79a7, shaded
  orange: "return r > b + 80 && r > g + 20",  // communication #f28e2b, shaded
});
ok(px.nonwhite > px.total * 0.02, `the 3D view is not blank (${px.nonwhite} of ${px.total} pixels drawn)`);
ok(px.blue > 200, `computation bars in their colour (${px.blue} blue pixels)`);
ok(px.orange > 200, `communication bars in their colour (${px.orange} orange pixels)`);

// Hover over the 3D view until a bar's tooltip appears; check its value.
const box = await page.locator("#view3d").boundingBox();
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
    await page.mouse.move(x, y);
    await page.waitForTimeout(30);
    const t = await tooltip();
    if (t && /:\s*[0-9.]+ (s|ms|us)/.test(t)) { tip = t; at = { x, y }; }
  }
ok(tip !== null, "hovering a bar shows a tooltip: " + JSON.stringify(tip));
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
  await page.waitForTimeout(500);
  const st = await page.evaluate(() => window.mwState);
  const g = R.groups.find(x => x.label === label);
  const kids = R.groups.filter(x => x.parent === (g && g.id) && x.max_us > 0).map(x => x.label);
  ok(g && st.parent === g.id && JSON.stringify(st.rows) === JSON.stringify(kids),
     `clicking the ${label} bar shows its level-2 groups ${JSON.stringify(st.rows)}`);
  await page.click("#back");
  await page.waitForTimeout(300);
  ok((await page.evaluate(() => window.mwState.parent)) === "all", "Back returns to the level-1 groups");
} else {
  ok(false, "no bar found to click");
}
ok(requests.length === 0, "the page made no network request " + requests.join(" "));
await browser.close();
done();
