#!/bin/bash
# replay --verify's findings in analyze: one trace replayed twice on a loop
# device, with and without --verify, imported; report (of the database id
# and of the run file in place), compare (text and --json) and html show
# the run's fidelity equal to its run file's verify.* meta (info --json),
# and "-" / null for the plain run; the replayer's own lateness equals
# replay --json's; the JSON matches schemas/analyze-{report,compare}.schema.json.
. "$(dirname "$0")/lib.sh"
need_bpf
need_cmd python3 losetup
T=$E2E_TMP
S=$(dirname "$0")/../../schemas
export BLKPEAK_DB=$T/v.db

L=$(make_loop 32M dev)
"$BLKPEAK" generate -o "$T/g.bpt" --count 300 --read-pct 50 --bs 4k:70,64k:30 --span 16m \
	--queue-depth 4 --seed 9 -q || fail "generate"
"$BLKPEAK" replay "$T/g.bpt" --target "$L" --allow-write --timing afap --queue-depth 8 \
	-o "$T/plain.bpt" --json >"$T/plain.json" 2>"$T/err" || fail "replay: $(cat "$T/err")"
"$BLKPEAK" replay "$T/g.bpt" --target "$L" --allow-write --timing original --speed 4 --verify \
	-o "$T/ver.bpt" --json >"$T/ver.json" 2>"$T/err" || fail "replay --verify: $(cat "$T/err")"
"$BLKPEAK" analyze import -q "$T/g.bpt" "$T/plain.bpt" "$T/ver.bpt" || fail "import"
"$BLKPEAK" info --json "$T/ver.bpt" >"$T/info.json" || fail "info"

# 1 trace, 2 plain run, 3 verified run
for i in 2 3; do
	"$BLKPEAK" analyze report "$i" >"$T/report-$i.txt" || fail "report $i"
	"$BLKPEAK" analyze report "$i" --json >"$T/report-$i.json" || fail "report $i --json"
done
"$BLKPEAK" analyze report "$T/ver.bpt" >"$T/report-file.txt" || fail "report FILE"
"$BLKPEAK" analyze report "$T/ver.bpt" --json >"$T/report-file.json" || fail "report FILE --json"
"$BLKPEAK" analyze compare 1 2 3 --no-store >"$T/compare.txt" || fail "compare"
"$BLKPEAK" analyze compare 1 2 3 --no-store --json >"$T/compare.json" || fail "compare --json"
"$BLKPEAK" analyze compare "$T/g.bpt" "$T/plain.bpt" "$T/ver.bpt" --json >"$T/compare-files.json" ||
	fail "compare FILE..."
"$BLKPEAK" analyze html 1 2 3 -o "$T/r.html" || fail "html"
# the in-place report is the imported copy's from the fidelity block on
sed -n '/^fidelity/,$p' "$T/report-3.txt" >"$T/a"
sed -n '/^fidelity/,$p' "$T/report-file.txt" >"$T/b"
[ -s "$T/a" ] || fail "report 3 has no fidelity block: $(cat "$T/report-3.txt")"
cmp -s "$T/a" "$T/b" || { diff "$T/a" "$T/b" | head; fail "report FILE differs from report ID"; }
grep -q "^  kernel view  -   (run without replay --verify)$" "$T/report-2.txt" ||
	fail "the plain run's report does not say it ran without --verify: $(cat "$T/report-2.txt")"

# one python (it starts slowly on a loaded machine): the schemas, then the figures
python3 - "$T" "$S" "$(dirname "$0")/json_schema_check.py" <<'EOF' || fail "see above"
import json, re, runpy, sys
t, schemas, checker = sys.argv[1:4]
for schema, files in (("analyze-report", ("report-2", "report-3", "report-file")),
                      ("analyze-compare", ("compare", "compare-files"))):
    for f in files:
        sys.argv = ["json_schema_check.py", f"{schemas}/{schema}.schema.json", f"{t}/{f}.json"]
        runpy.run_path(checker)  # exits with the reason when it does not match
load = lambda n: json.load(open(f"{t}/{n}"))
meta = load("info.json")["meta"]
m = lambda k: int(meta["verify." + k])
want = {"ios": m("ios"), "present": m("present"), "missing": m("missing"),
        "misplaced": m("misplaced"), "extra_requests": m("extra"), "lost_events": m("lost"),
        "issue_error": {"p50_ns": m("issue_err_p50_ns"), "p99_ns": m("issue_err_p99_ns"),
                        "max_ns": m("issue_err_max_ns")}}
drift = float(meta["verify.drift"])
faithful = want["missing"] == 0 and want["misplaced"] == 0 and want["lost_events"] == 0

def check_fid(f, where):
    assert f is not None, f"{where}: fidelity is null"
    got = {k: f[k] for k in want}
    assert got == want, f"{where}: {got} != meta {want}"
    assert abs(f["drift"] - drift) <= 1e-9 + 1e-6 * abs(drift), f"{where}: drift {f['drift']} != {drift}"
    assert f["faithful"] == faithful, f"{where}: faithful {f['faithful']}"

def check_late(l, replay, where):
    r = load(replay)["lateness"]
    got = {k: l[k] for k in ("p50_ns", "p99_ns", "max_ns")}
    assert got == r, f"{where}: lateness {got} != replay --json's {r}"

for n in ("report-3.json", "report-file.json"):
    run = load(n)["run"]
    check_fid(run["fidelity"], n)
    check_late(run["lateness"], "ver.json", n)
run = load("report-2.json")["run"]
assert run["fidelity"] is None, f"report 2: fidelity {run['fidelity']}"
check_late(run["lateness"], "plain.json", "report 2")
for n in ("compare.json", "compare-files.json"):
    e = load(n)["entries"]
    assert e[0]["fidelity"] is None and e[0]["lateness"] is None, f"{n}: the trace has {e[0]}"
    assert e[1]["fidelity"] is None, f"{n}: the plain run has fidelity {e[1]['fidelity']}"
    check_late(e[1]["lateness"], "plain.json", n)
    check_fid(e[2]["fidelity"], n)
    check_late(e[2]["lateness"], "ver.json", n)

# text: the same figures, "-" for the trace and the plain run
txt = open(f"{t}/compare.txt").read()
def cells(name):
    line = re.search(r"^" + re.escape(name) + r" +(.*)$", txt, re.M)
    assert line, f"compare: no row '{name}':\n{txt}"
    return re.split(r"  +", line.group(1).strip())
for name, key in (("  I/Os compared", "ios"), ("  present", "present"), ("  missing", "missing"),
                  ("  misplaced", "misplaced"), ("  lost events", "lost_events")):
    assert cells(name) == ["-", "-", str(want[key])], f"compare: {name}: {cells(name)}"
assert cells("  faithful") == ["-", "-", "yes" if faithful else "NO"], cells("  faithful")
assert ("WARNING: " in txt) == (not faithful), txt
rep = open(f"{t}/report-3.txt").read()
line = (f"  kernel view  replay --verify: {want['ios']} I/Os compared, {want['present']} present, "
        f"{want['missing']} missing, {want['misplaced']} misplaced; {want['lost_events']} events lost\n")
assert line in rep, f"report 3: no line {line!r}:\n{rep}"
html = open(f"{t}/r.html").read()
fid = html[html.index('<h2 id="fidelity">'):]
fid = fid[:fid.index("</table>")]
rows = re.findall(r"<tr><td class=\"l\"[^>]*>(.*?)</td>(.*?)</tr>", fid)
assert len(rows) == 3, fid
vals = lambda r: re.findall(r"<td[^>]*>(.*?)</td>", r[1])
assert vals(rows[1])[3:] == ["–"] * 10, f"html: plain run {vals(rows[1])}"
assert vals(rows[2])[3:8] == [str(want[k]) for k in ("ios", "present", "missing", "misplaced",
                                                      "lost_events")], f"html: {vals(rows[2])}"
print(f"  fidelity {want['present']}/{want['ios']} present, issue error p50 "
      f"{want['issue_error']['p50_ns']} ns; lateness p50 {load('ver.json')['lateness']['p50_ns']} ns")
EOF
exit 0
