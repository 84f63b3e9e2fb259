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
