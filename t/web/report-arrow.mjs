// Browser check of one arrow of report.html's wait-for graph: the page (from
// the file, in Debian's chromium) draws an arrow from rank FROM to rank TO,
// of a visible length, with both ranks drawn.
// Usage: node report-arrow.mjs REPORT.html FROM TO
// Prints TAP lines; exits 1 if any check fails.
import { ok, done, launch } from "./common.mjs";
import { pathToFileURL } from "node:url";

const [page_path, from, to] = process.argv.slice(2);
const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
await page.goto(pathToFileURL(page_path).href, { waitUntil: "load" });
const ranks = await page.evaluate(() => [...document.querySelectorAll("#waitfor g.node.rank")]
  .map(g => +g.dataset.rank));
ok(ranks.includes(+from) && ranks.includes(+to), `ranks ${from} and ${to} are drawn: ${JSON.stringify(ranks)}`);
const edges = await page.evaluate(() => [...document.querySelectorAll("#waitfor path.edge")]
  .map(e => ({ from: +e.dataset.from, to: +e.dataset.to, len: e.getTotalLength() })));
ok(edges.some(e => e.from === +from && e.to === +to && e.len > 10),
   `an arrow from rank ${from} to rank ${to}: ${JSON.stringify(edges)}`);
await browser.close();
done();
