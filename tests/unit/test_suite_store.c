/*
 * test_suite_store.c — analyze/suite_store.h: a stored run tagged with
 * its suite (label and host from the run), the same repeat stored again
 * replaces its row, another version of the suite under the same label is
 * refused unless new_version, a result without a label is refused; and a
 * database of schema version 8 gains suite_results on its next open for
 * writing (schema 8 -> 9).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analyze_testutil.h"
#include "db.h"
#include "suite_store.h"

static void teardown(void) { at_cleanup(); }

TestSuite(suite_store, .fini = teardown);

static int64_t run_with_label(sqlite3 *db, int64_t id, const char *label, const char *host)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "UPDATE traces SET label = %s%s%s WHERE id = %lld;"
		 " INSERT INTO runs (trace_id, host) VALUES (%lld, '%s')"
		 " ON CONFLICT (trace_id) DO UPDATE SET host = excluded.host", label ? "'" : "",
		 label ? label : "NULL", label ? "'" : "", (long long)id, (long long)id, host);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	return id;
}

static int64_t import_one(sqlite3 *db, const char *name, uint64_t seed)
{
	const char *p = at_tmp(name);
	struct bpt_record r[3];
	static const char *const comms[] = { "" };

	for (int i = 0; i < 3; i++)
		r[i] = at_rec(BPT_OP_READ, seed + i * 1000, seed + i * 1000, seed + i * 1000 + 500,
			      8 * (uint64_t)i, 4096, 1, 0);
	at_write(p, "replay", 1, comms, 1, r, 3, 0, NULL, 0);
	at_import(db, p);
	return at_int(db, "SELECT max(id) FROM traces");
}

Test(suite_store, tags_replaces_and_refuses_other_versions)
{
	sqlite3 *db = at_open(at_tmp("s.db"));
	struct bpt_error e = { 0 };
	struct suite_tag t = { "0123456789abcdef", "mini", "seek causal", "replay", 1, 0, NULL };
	int64_t a = run_with_label(db, import_one(db, "a.bpt", 1), "single", "h1");
	int64_t b = run_with_label(db, import_one(db, "b.bpt", 2), "single", "h1");
	int64_t c = run_with_label(db, import_one(db, "c.bpt", 3), NULL, "h1");

	cr_assert_eq(suite_tag_store(db, &t, a, 0, &e), 0, "%s", e.msg);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM suite_results WHERE label = 'single'"
			    " AND host = 'h1' AND trace_id IS NOT NULL"), 1);
	/* the same repeat again: replaced, not added */
	cr_assert_eq(suite_tag_store(db, &t, b, 0, &e), 0, "%s", e.msg);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM suite_results"), 1);
	cr_assert_eq(at_int(db, "SELECT trace_id FROM suite_results"), b);
	/* another version of "mini" under label single on h1 */
	t.digest = "fedcba9876543210";
	cr_assert_eq(suite_tag_store(db, &t, a, 0, &e), -EEXIST);
	cr_assert(strstr(e.msg, "has results of version 0123456789abcdef"), "%s", e.msg);
	t.new_version = 1;
	cr_assert_eq(suite_tag_store(db, &t, a, 0, &e), 0, "%s", e.msg);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM suite_results"), 2);
	/* no label: refused */
	cr_assert_eq(suite_tag_store(db, &t, c, 0, &e), -EINVAL);
	cr_assert(strstr(e.msg, "no label"), "%s", e.msg);
	/* --suite-label: ranked under the label given, not the run's */
	t.label = "mixed";
	cr_assert_eq(suite_tag_store(db, &t, c, 0, &e), 0, "%s", e.msg);
	cr_assert_eq(at_int(db, "SELECT trace_id FROM suite_results WHERE label = 'mixed'"), c);
	t.label = "";
	cr_assert_eq(suite_tag_check(&t, &e), -EINVAL);
	cr_assert(strstr(e.msg, "--suite-label"), "%s", e.msg);
	sqlite3_close(db);
}

Test(suite_store, tag_fields_checked)
{
	struct bpt_error e = { 0 };
	struct suite_tag t = { "0123456789ABCDEF", "mini", "w", "replay", 1, 0, NULL };

	cr_assert_eq(suite_tag_check(&t, &e), -EINVAL);
	t.digest = "0123456789abcdef";
	t.kind = "zcav";
	cr_assert_eq(suite_tag_check(&t, &e), -EINVAL);
	cr_assert(strstr(e.msg, "'zcav'"), "%s", e.msg);
	t.kind = "qd-sweep";
	t.repeat = 0;
	cr_assert_eq(suite_tag_check(&t, &e), -EINVAL);
	t.repeat = 2;
	t.name = "";
	cr_assert_eq(suite_tag_check(&t, &e), -EINVAL);
	t.name = "mini";
	cr_assert_eq(suite_tag_check(&t, &e), 0, "%s", e.msg);
}

Test(suite_store, migrates_version_8)
{
	const char *dbp = at_tmp("m7.db");
	struct bpt_error e = { 0 };
	sqlite3 *db = at_open(dbp);

	import_one(db, "m.bpt", 5);
	cr_assert_eq(sqlite3_exec(db, "DROP TABLE suite_results; PRAGMA user_version = 8", NULL, NULL,
				  NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	sqlite3_close(db);
	cr_assert_eq(adb_open(&db, dbp, ADB_CREATE, &e), 0, "%s", e.msg);
	cr_assert_eq(at_int(db, "PRAGMA user_version"), ADB_SCHEMA_VERSION); /* migrated on to the newest */
	cr_assert_eq(at_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'suite_results'"), 1);
	cr_assert_eq(at_int(db, "SELECT count(*) FROM traces"), 1);
	sqlite3_close(db);
}
