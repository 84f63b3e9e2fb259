/*
 * html.h — the self-contained HTML report of `blkpeak analyze html`: one
 * file with inline CSS and inline SVG charts (no script, no network),
 * holding a table of the traces and runs, a comparison against the first
 * one (time saved in %), and the five charts of plot.h.
 */
#ifndef BLKPEAK_HTML_H
#define BLKPEAK_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

#include "bpt.h"

struct progress;

struct html_options {
	const char *title;     /* <h1> and <title>; NULL: "blkpeak report" */
	const char *note;      /* a paragraph under the title (plain text), or NULL */
	struct progress *progress; /* the command's progress line, or NULL: one of its own */
	const char *db_path;   /* shown in the header */
	const char *measurements; /* "all" or "ID,ID,...": the Measurements section; NULL: none */
	const char *leaderboard;  /* a suite (folder, digest or name): the Leaderboard section; NULL: none */
	const char *baseline;     /* the leaderboard's baseline label, or NULL */
	/* --files: the tables, the Files section and the charts cover the
	 * I/Os of these files only; NULL: every I/O */
	const struct files_filter *files;
};

/*
 * Write the report on traces ids[0..n-1] to f (n >= 1, or 0 with
 * o->measurements or o->leaderboard: then only those sections). The first is the
 * baseline of the comparison (compare.h, computed with --force: ids of
 * different traces are shown, with a remark). A chart none of the traces
 * can fill is replaced by a line saying so. Returns 0, -ENOENT (an id is
 * not in the database; err says which), -EINVAL, -ENOMEM or -EIO.
 */
int html_write(sqlite3 *db, const int64_t *ids, size_t n, const struct html_options *o, FILE *f,
	       struct bpt_error *err);

#endif
