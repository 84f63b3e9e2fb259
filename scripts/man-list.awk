# man-list.awk — a command's `--list` (a table the code keeps: convert's
# format registry, formats/registry.c; replay's engines and disk model
# presets, replay/engine/engine.c and replay/disk/disk_presets.c) as scdoc
# for its man page: the Makefile puts it where the page's source has the
# line @LIST@, so the page lists what the binary has, never a hand-kept
# copy. A heading line ("read (--from):") becomes a paragraph, each
# "  NAME  SUMMARY" line an entry. Fails when the list holds no entry.
function esc(s) { gsub(/\\/, "\\\\", s); gsub(/\*/, "\\*", s); gsub(/_/, "\\_", s); return s }
/^[^ ]/ {
	h = $0
	sub(/:$/, "", h)
	if (match(h, /\(--[a-z]+\)/))
		h = substr(h, 1, RSTART) "*" substr(h, RSTART + 1, RLENGTH - 2) "*)" substr(h, RSTART + RLENGTH)
	printf "%s%s:\n\n", toupper(substr(h, 1, 1)), substr(h, 2)
	next
}
/^  [^ ]/ {
	name = $1
	sum = $0
	sub(/^  [^ ]+ +/, "", sum)
	printf "*%s*\n\t%s\n\n", esc(name), esc(sum)
	n++
}
END { if (!n) { print "man-list.awk: no entry in the list" > "/dev/stderr"; exit 1 } }
