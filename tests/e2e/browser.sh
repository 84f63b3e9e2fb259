# browser.sh — open a page in headless Chromium for the end-to-end tests
# (sourced after lib.sh). Debian's `chromium` package; no network, no
# profile of the user's (a fresh --user-data-dir in the test's temp dir).

CHROMIUM=${CHROMIUM:-chromium}
_BROWSER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# chromium_run PAGE OUT_PREFIX [EXTRA FLAGS...]: run Chromium on PAGE (a
# file path) with the extra flags (--screenshot=..., --dump-dom), stdout to
# OUT_PREFIX.out, stderr (with console messages) to OUT_PREFIX.log.
chromium_run() {
	_page=$1 _out=$2; shift 2
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$E2E_TMP/chromium.XXXXXX")" \
		--enable-logging=stderr --v=0 "$@" "file://$(realpath "$_page")" \
		> "$_out.out" 2> "$_out.log"
}

# check_report_in_browser REPORT.html CHARTS: the report renders in
# Chromium with CHARTS <svg> elements in its DOM, no console message, and
# a screenshot that is not blank (left at REPORT.png for a person to see).
check_report_in_browser() {
	_html=$1 _want=$2 _b=$E2E_TMP/browser
	chromium_run "$_html" "$_b.dom" --dump-dom || fail "chromium --dump-dom failed: $(tail -3 "$_b.dom.log")"
	_n=$(grep -o '<svg ' "$_b.dom.out" | wc -l)
	[ "$_n" -eq "$_want" ] || fail "the rendered report has $_n charts, expected $_want"
	grep -q 'class="comparison"' "$_b.dom.out" || fail "the rendered report has no comparison table"
	if grep ':CONSOLE' "$_b.dom.log"; then fail "console messages while rendering the report"; fi
	chromium_run "$_html" "$_b.shot" --window-size=1100,2400 --hide-scrollbars \
		--screenshot="${_html%.html}.png" || fail "chromium --screenshot failed"
	[ -s "${_html%.html}.png" ] || fail "no screenshot was written"
	python3 "$_BROWSER_DIR/chartcheck.py" png "${_html%.html}.png" || fail "the screenshot looks blank"
	if grep ':CONSOLE' "$_b.shot.log"; then fail "console messages while rendering the report"; fi
}

# check_report_fits REPORT.html WIDTH...: at each window width (CSS px),
# the report has no horizontal scroll (document scrollWidth <= innerWidth)
# and no cut text: every table inside the page, every <svg> inside the
# page, every text of a chart (legends, ticks, labels) inside its <svg>
# and none ending in "…" (tests/e2e/fitprobe.js). The page has no script
# of its own: a copy with the probe appended is rendered (--dump-dom), and
# the probe writes its findings into a <pre id="fit-result">.
check_report_fits() {
	_html=$1; shift
	_probe=$(dirname "$(realpath "$_html")")/.fit-probe.html
	python3 - "$_html" "$_BROWSER_DIR/fitprobe.js" "$_probe" <<'PY' || fail "cannot write the probe page"
import sys
page = open(sys.argv[1], encoding="utf-8").read()
js = open(sys.argv[2], encoding="utf-8").read()
assert "</body>" in page, "no </body>"
open(sys.argv[3], "w", encoding="utf-8").write(page.replace("</body>", "<script>" + js + "</script></body>", 1))
PY
	for _w in "$@"; do
		chromium_run "$_probe" "$E2E_TMP/fit-$_w" --window-size="$_w,1000" --hide-scrollbars --dump-dom ||
			{ rm -f "$_probe"; fail "chromium at $_w px failed: $(tail -3 "$E2E_TMP/fit-$_w.log")"; }
		_res=$(sed -n '/FIT-BEGIN/,/FIT-END/p' "$E2E_TMP/fit-$_w.out" | sed '1d;$d;s/&gt;/>/g;s/&lt;/</g;s/&amp;/\&/g')
		[ -n "$_res" ] || { rm -f "$_probe"; fail "the fit probe did not run at $_w px"; }
		grep -qx "innerWidth $_w" <<< "$_res" || { rm -f "$_probe"; fail "the window is not $_w px wide: $(head -1 <<< "$_res")"; }
		_bad=$(grep -v '^innerWidth ' <<< "$_res")
		[ -z "$_bad" ] || { rm -f "$_probe"; fail "the report does not fit $_w px:
$(head -20 <<< "$_bad")"; }
	done
	rm -f "$_probe"
}
