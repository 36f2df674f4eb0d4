// What the browser tests share: TAP output and Debian's chromium launched
// through playwright-core (executablePath, no browser download).
import { chromium } from "playwright-core";

let n = 0, failed = 0;

// One TAP line: "ok N - what" or "not ok N - what".
export function ok(cond, what) {
  n++;
  if (!cond) failed++;
  console.log(`${cond ? "ok" : "not ok"} ${n} - ${what}`);
}

// The plan line; exits 1 if any check failed.
export function done() {
  console.log(`1..${n}`);
  process.exit(failed ? 1 : 0);
}

// Headless chromium ($CHROMIUM or /usr/bin/chromium), with no background
// network of its own; extra: more command-line switches.
export function launch(extra = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", ...extra, "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

// Decode the PNG screenshots pngs (Buffers) in page (any page that allows
// data: images and eval) and return what the function body of (px, arg)
// gives, px being their RGBA pixel arrays (w their widths).
function withPixels(page, pngs, body, arg) {
  return page.evaluate(async ([b64s, body, arg]) => {
    const px = [], w = [];
    for (const b64 of b64s) {
      const img = new Image();
      img.src = "data:image/png;base64," + b64;
      await img.decode();
      const c = document.createElement("canvas");
      c.width = img.width; c.height = img.height;
      const g = c.getContext("2d");
      g.drawImage(img, 0, 0);
      px.push(g.getImageData(0, 0, c.width, c.height).data);
      w.push(c.width);
    }
    return new Function("px", "arg", "w", body)(px, arg, w);
  }, [pngs.map(p => p.toString("base64")), body, arg]);
}

// Count the pixels of a PNG screenshot (a Buffer) that pass each test,
// decoded in page: tests maps a name to the body of a function of (r, g, b),
// e.g. {red: "return r > 150 && g < 80"}.  Returns {name: count, ..., total}.
export function countPixels(page, png, tests) {
  return withPixels(page, [png], `
    const d = px[0], fs = Object.entries(arg).map(([k, body]) => [k, new Function("r", "g", "b", body)]);
    const out = { total: d.length / 4 };
    for (const [k] of fs) out[k] = 0;
    for (let i = 0; i < d.length; i += 4)
      for (const [k, f] of fs) if (f(d[i], d[i + 1], d[i + 2])) out[k]++;
    return out;`, tests);
}

// How many pixels differ (any channel by more than tol) between two PNG
// screenshots of the same size (Buffers); -1 when the sizes differ.
export function diffPixels(page, a, b, tol = 24) {
  return withPixels(page, [a, b], `
    const [p, q] = px;
    if (p.length !== q.length) return -1;
    let n = 0;
    for (let i = 0; i < p.length; i += 4)
      if (Math.abs(p[i] - q[i]) > arg || Math.abs(p[i + 1] - q[i + 1]) > arg || Math.abs(p[i + 2] - q[i + 2]) > arg) n++;
    return n;`, tol);
}


// The pixels of a PNG screenshot (a Buffer) that pass test, the body of a
// function of (r, g, b), decoded in page: an array of y * 100000 + x.
export function pixelsWhere(page, png, test) {
  return withPixels(page, [png], `
    const d = px[0], f = new Function("r", "g", "b", arg), out = [];
    for (let i = 0; i < d.length; i += 4)
      if (f(d[i], d[i + 1], d[i + 2])) out.push(Math.floor(i / 4 / w[0]) * 100000 + (i / 4) % w[0]);
    return out;`, test);
}
