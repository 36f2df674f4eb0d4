#!/bin/bash
# The interactive page of "mpiwatch analyze imbalance --html" in a real
# browser: Debian's chromium driven by playwright-core (t/web, installed by
# .ci/deps).  Opened from a file: the 3D view is drawn with the groups'
# colours, hovering a bar shows its value and similarity, clicking a level-1
# group drills down to its level-2 groups and Back returns, and no network
# request is made.  Then what a reader sees at 1280 px, for tau4 and for
# generated jobs of 40 and 10,000 processes (t/lib/tau-profiles.py): the
# findings on the first screen, the sortable tables with the similarity, the
# 3D bars coloured by similarity with every row visible, the process axis
# binned when it must be, whole and separate heatmap labels, 3D axis labels
# that do not lie on one another (their screen boxes), no console
# error.  MW_SHOTS=DIR keeps the screenshots (doc/img/ has a copy).
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
more=()
for n in 40 10000; do
    mkdir "$work/p$n"
    python3 "$top/t/lib/tau-profiles.py" "$work/p$n" "$n"
    if ! "$mw" analyze imbalance "$work/p$n" --quiet --html "$work/page$n.html" --json "$work/a$n.json"; then
        echo "1..1"; echo "not ok 1 - mpiwatch analyze imbalance --html failed on $n processes"; exit 1
    fi
    rm -rf "$work/p$n"
    more+=("$n" "$work/page$n.html" "$work/a$n.json")
done
cd "$top/t/web" && timeout 600 node imbalance-view.mjs "$work/page.html" "$work/a.json" "$work/view3d.png" "${more[@]}"
rc=$?
if [ -n "${MW_SHOTS:-}" ]; then mkdir -p "$MW_SHOTS" && cp "$work"/*.png "$work"/*.jpg "$MW_SHOTS"/; fi
exit $rc
