/*
 * run_partial.c — reading a run's partial state (run_partial.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "partial.h"
#include "run_partial.h"

int run_partial_load(sqlite3 *db, int64_t trace_id, struct run_partial *p,
		     struct bpt_error *err)
{
	static const char sql[] =
		"SELECT r.partial, t.ios, r.ios_total, r.stop_reason FROM traces t"
		" JOIN runs r ON r.trace_id = t.id WHERE t.id = ?";
	sqlite3_stmt *st;
	int rc;

	memset(p, 0, sizeof(*p));
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read the run");
	sqlite3_bind_int64(st, 1, trace_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int(st, 0)) {
		const unsigned char *why = sqlite3_column_text(st, 3);

		run_partial_set(p, (uint64_t)sqlite3_column_int64(st, 1),
				(uint64_t)sqlite3_column_int64(st, 2), why ? (const char *)why : "");
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return adb_fail(db, err, "cannot read the run");
	return 0;
}

void run_partial_set(struct run_partial *p, uint64_t done, uint64_t total, const char *reason)
{
	p->partial = 1;
	p->done = done;
	p->total = total;
	snprintf(p->reason, sizeof(p->reason), "%s", reason ? reason : "");
	/* recorded text: no control byte may reach a terminal */
	for (char *c = p->reason; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	partial_text(p->done, p->total, p->reason, p->text, sizeof(p->text));
}

int run_header_is_run(const struct bpt_header *h)
{
	return !strcmp(h->kind, "replay") || bpt_header_get_meta(h, BPT_META_SOURCE_DIGEST);
}

int run_header_partial(const struct bpt_header *h, const char **reason)
{
	const char *total = bpt_header_get_meta(h, BPT_META_RUN_IOS);
	const char *status = bpt_header_get_meta(h, BPT_META_RUN_STATUS);

	*reason = NULL;
	if (status ? strcmp(status, BPT_RUN_PARTIAL) : total == NULL)
		return 0;
	*reason = status ? bpt_header_get_meta(h, BPT_META_RUN_STOPPED)
			 : "the run file ends before the replay did (killed, or cut)";
	return 1;
}
