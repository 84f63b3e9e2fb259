#!/bin/bash
# 91-report-fits.sh — the demo's HTML report fits the page (issue 25): the
# demo (scripts/demo.sh, small size) replays its recording on every target
# it knows (one disk, RAID 0, RAID 1, RAID 5 of four, "dual"), whose target
# specs are the longest the demo makes, and the report renders in headless
# Chromium at 1280 and 1920 px wide without a horizontal scroll, with every
# table and chart inside the page and every chart text (legends, ticks,
# axis labels) inside its chart and uncut (browser.sh, check_report_fits).
# Each chart has a legend item per series, in a colour and a dash pattern
# (lines) or marker (points) of its own, and the legends name the runs by
# their short labels, not by their target specs. The same with a
# Measurements section (measure on the null engine) after the runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/browser.sh"
need_bpf
need_cmd mkfs.ext4 losetup python3 sqlite3 "$CHROMIUM"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
with_kernel_lock

OUT=$E2E_TMP/demo
mkdir "$E2E_TMP/tmp" || fail "mkdir"
DEMO_TMP=$E2E_TMP/tmp DEMO_DIR=$OUT DEMO_SCALE=0.2 DEMO_REPEAT=1 \
	DEMO_TARGETS="single raid0 raid1 raid5 dual" BLKPEAK=$BLKPEAK "$ROOT/scripts/demo.sh" \
	> "$E2E_TMP/demo.log" 2>&1 || { tail -30 "$E2E_TMP/demo.log"; fail "the demo failed"; }
[ -s "$OUT/report.html" ] || fail "the demo wrote no report"

check_report_fits "$OUT/report.html" 1280 1920
note "the report fits 1280 and 1920 px"

# with a Measurements section too (two targets of each kind, null engine)
for t in a b; do
	truncate -s 64M "$E2E_TMP/m$t.img"
	for k in "qd-sweep --ios 300" "seeks --ios 200" "commit --ios 100"; do
		# shellcheck disable=SC2086
		"$BLKPEAK" measure $k --target "$E2E_TMP/m$t.img" --engine null --null-latency 100us \
			--db "$OUT/blkpeak.db" > /dev/null || fail "measure $k"
	done
done
ids=$(sqlite3 "$OUT/blkpeak.db" "SELECT group_concat(id, ' ') FROM (SELECT id FROM traces ORDER BY id)")
# shellcheck disable=SC2086
"$BLKPEAK" analyze html --db "$OUT/blkpeak.db" --measurements all -o "$E2E_TMP/all.html" $ids ||
	fail "html with measurements"
grep -q 'id="measure-qd-sweep"' "$E2E_TMP/all.html" || fail "no Measurements section"
check_report_fits "$E2E_TMP/all.html" 1280 1920
note "with measurements too"

# Every chart: one legend item per series; the lines of a chart differ in
# dash pattern and the series' colours differ; no legend names a device.
python3 - "$OUT/report.html" <<'PY' || fail "legends"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
charts = re.findall(r"<svg .*?</svg>", page, re.S)
assert charts, "no chart"
for i, c in enumerate(charts):
    series = re.findall(r'<g class="series" data-series="(\d+)"', c)
    items = re.findall(r'<g class="legend-item" data-series="(\d+)"', c)
    assert items == series, f"chart {i}: legend items {items} for series {series}"
    legend = c[c.index('<g class="legend"'):]
    texts = re.findall(r"<text[^>]*>([^<]*)<title>", legend)
    for t in texts:
        assert "/dev/" not in t and len(t) <= 40, f"chart {i}: legend label {t!r} is a target spec"
    if "<polyline" in c:
        lines = re.findall(r"<polyline [^>]*>", c)
        dashes = [(re.search(r'stroke-dasharray="([^"]*)"', l) or [None, ""])[1] for l in lines]
        colours = [re.search(r' stroke="([^"]*)"', l)[1] for l in lines]
        assert len(set(dashes)) == len(dashes), f"chart {i}: two lines share a dash pattern: {dashes}"
        assert len(set(colours)) == len(colours), f"chart {i}: two lines share a colour"
# the peers' charts are there; the members chart shows the arrays' members
for k in ("mbps", "latency-time", "seeks-time", "members", "btt", "btt-procs"):
    assert f'<figure id="chart-{k}">\n<svg ' in page, f"no {k} chart"
members = page[page.index('<figure id="chart-members">'):]
members = members[:members.index("</figure>")]
raid5 = re.search(r'<g class="series" data-series="\d+" data-points="(\d+)" data-label="\d+ raid5 x4', members)
assert raid5 and int(raid5[1]) == 4, "the members chart does not show RAID 5's four members"
print(f"{len(charts)} charts, legends checked")
PY
exit 0
