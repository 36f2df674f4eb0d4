// Browser test of the collector's report.html: Debian's chromium driven by
// playwright-core (executablePath, no browser download).
// Usage: node report-view.mjs REPORT.html REPORT.json SCREENSHOT.png
// Prints TAP lines; exits 1 if any check fails.
import { ok, done, launch, countPixels } from "./common.mjs";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [page_path, json_path, shot_path] = process.argv.slice(2);
const R = JSON.parse(readFileSync(json_path, "utf8"));
const page_url = pathToFileURL(page_path).href;

const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
// Every request but the page itself is recorded and refused: the report
// must be one offline file.
const requests = [];
page.on("request", r => { if (r.url() !== page_url) requests.push(r.url()); });
await page.route("**/*", route => {
  if (route.request().url() === page_url) return route.continue();
  requests.push(route.request().url());
  return route.abort();
});
const errors = [];
page.on("pageerror", e => errors.push(String(e)));
page.on("console", m => { if (m.type() === "error") errors.push(m.text()); });
await page.goto(page_url, { waitUntil: "load" });
ok(errors.length === 0, "the page renders without an error " + errors.join("; "));

// The first line a reader sees is the answer.
const lines = (await page.evaluate(() => document.body.innerText)).split("\n").filter(l => l.trim());
ok(lines[0] === R.answer[0], `the first line is the answer: ${JSON.stringify(lines[0])}`);
ok(await page.locator("#answer p").first().isVisible(), "the answer is visible");

// The wait-for graph is drawn and shows the ranks of the cycle.
const cycle = (R.deadlock.ranks || []).slice().sort((a, b) => a - b);
ok(R.deadlock.found && cycle.length >= 2, `the report has a deadlock among ranks ${cycle}`);
const box = await page.locator("#waitfor").boundingBox();
ok(box && box.width > 100 && box.height > 100, `the graph is drawn (${box && box.width}x${box && box.height})`);
const drawn = await page.evaluate(() => [...document.querySelectorAll("#waitfor g.node.rank.dead")]
  .map(g => ({ rank: +g.dataset.rank, text: g.textContent, w: g.getBBox().width })));
ok(JSON.stringify(drawn.map(d => d.rank).sort((a, b) => a - b)) === JSON.stringify(cycle),
   `the graph marks exactly the ranks of the cycle: ${JSON.stringify(drawn.map(d => d.rank))}`);
ok(drawn.every(d => d.text.includes(`rank ${d.rank}`) && d.w > 20), "each is drawn with its name");
const edges = await page.evaluate(() => [...document.querySelectorAll("#waitfor path.edge")]
  .map(e => ({ from: +e.dataset.from, to: +e.dataset.to, len: e.getTotalLength() })));
const inCycle = r => cycle.includes(r);
// A cycle: every rank of it waits for another rank of it (an arrow between them).
ok(cycle.every(r => edges.some(e => e.from === r && inCycle(e.to) && e.len > 10)),
   `every rank of the cycle has an arrow to another rank of it: ${JSON.stringify(edges)}`);
const shot = await page.locator("#waitfor").screenshot({ path: shot_path });
// Counted on a blank page of its own (the report's policy allows no image).
const blank = await browser.newPage();
const { red } = await countPixels(blank, shot, { red: "return r > 150 && g < 80 && b < 80" });
ok(red > 300, `the cycle is drawn in red on screen (${red} red pixels)`);

// The stack classes, the timeline and the nodes.
const tree = await page.locator("#stack-tree").innerText().catch(() => "");
const leaf = R.stack_tree.length ? JSON.stringify(R.stack_tree).match(/"frame":"(MPI_[A-Za-z_]+)"/) : null;
ok(leaf && tree.includes(leaf[1]) && /main/.test(tree),
   `the stack classes are shown as a tree from main to ${leaf && leaf[1]}`);
ok(await page.locator("#timeline tr").count() === R.timeline.length + 1,
   `the timeline has the report's ${R.timeline.length} events`);
ok(await page.locator("#nodes tr").count() === R.nodes.length + 1,
   `the nodes table has the report's ${R.nodes.length} node(s)`);
ok(requests.length === 0, "the page made no network request " + requests.join(" "));
await browser.close();
done();
