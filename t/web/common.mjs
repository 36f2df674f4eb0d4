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
