#!/bin/bash
# The interactive page of "mpiwatch analyze imbalance --html" in a real
# browser: Debian's chromium driven by playwright-core (t/web, installed by
# .ci/deps).  Opened from a file: the 3D view is drawn with the groups'
# colours, hovering a bar shows its value, clicking a level-1 group drills
# down to its level-2 groups and Back returns, and no network request is made.
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /var/tmp/mw-imbhtml.XXXXXX)
trap 'rm -rf "$work"' EXIT
mw=$top/build/bin/mpiwatch
if [ ! -x "$mw" ] || [ ! -d "$top/t/web/node_modules/playwright-core" ] || [ ! -x /usr/bin/chromium ]; then
    echo "1..1"
    echo "not ok 1 - needs build/bin/mpiwatch, t/web/node_modules (npm ci --prefix t/web) and /usr/bin/chromium (.ci/deps)"
    exit 1
fi
if ! "$mw" analyze imbalance "$top/t/data/imbalance/tau4" --quiet --html "$work/page.html" --json "$work/a.json"; then
    echo "1..1"; echo "not ok 1 - mpiwatch analyze imbalance --html failed"; exit 1
fi
cd "$top/t/web" && exec timeout 240 node imbalance-view.mjs "$work/page.html" "$work/a.json" "$work/view3d.png"
