/*
 * leaderboard.c — a suite's results loaded and ranked (leaderboard.h).
 * Every SQL statement of the leaderboard is in this file, written in
 * portable SQL (no SQLite-only functions), for the PostgreSQL store too.
 */
#include "leaderboard.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "db.h"

/* The results of one suite version: one row per stored repeat; a run's
 * time is its first issue to its last completion (compare's duration);
 * partial runs are left out. */
static const char rows_sql[] =
	"SELECT r.workload, r.kind, r.label, r.host, r.suite_name,"
	" t.last_complete_ns - t.first_issue_ns, m.score_ios_per_s, r.trace_id"
	" FROM suite_results r"
	" LEFT JOIN traces t ON t.id = r.trace_id"
	" LEFT JOIN runs u ON u.trace_id = r.trace_id"
	" LEFT JOIN measurements m ON m.id = r.measurement_id"
	" WHERE r.suite_digest = ? AND (u.partial IS NULL OR u.partial = 0)"
	" ORDER BY r.workload, r.label, r.host, r.repeat_no";

/* The versions of a suite name, the latest (highest run stored) first. */
static const char versions_sql[] =
	"SELECT suite_digest, max(coalesce(trace_id, 0)) AS last FROM suite_results"
	" WHERE suite_name = ? GROUP BY suite_digest ORDER BY last DESC, suite_digest";

/* A suite folder's digest, from `blkpeak suite digest DIR` (suite/ reads
 * the manifest and recordings; analyze does not include its headers). On
 * failure err holds the child's own reason. */
static int folder_digest(const char *dir, char digest[17], struct bpt_error *err)
{
	const char *tmp = getenv("TMPDIR");
	char log[256], line[1024];
	char *argv[] = { "blkpeak", "suite", "digest", (char *)dir, NULL };
	int fd, rc;
	FILE *f;

	snprintf(log, sizeof(log), "%.200s/blkpeak-leaderboard.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if ((fd = mkstemp(log)) < 0)
		return bpt_error_set(err, -errno, "cannot make a temporary file: %s", strerror(errno));
	close(fd);
	rc = child_run(argv, log, 0, NULL, NULL);
	f = fopen(log, "r");
	line[0] = '\0';
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	unlink(log);
	line[strcspn(line, "\n")] = '\0';
	if (rc)
		return bpt_error_set(err, -EINVAL, "%s", !strncmp(line, "blkpeak: suite digest: ", 23) ?
				     line + 23 : line);
	if (strlen(line) < 17 || line[16] != ' ' || strspn(line, "0123456789abcdef") != 16)
		return bpt_error_set(err, -EIO, "'%s': 'blkpeak suite digest' gave no digest", dir);
	memcpy(digest, line, 16);
	digest[16] = '\0';
	return 0;
}

int lb_resolve(sqlite3 *db, const char *suite, char digest[17], char *others, size_t olen,
	       struct bpt_error *err)
{
	sqlite3_stmt *st;
	struct stat sb;
	int rc, k = 0;
	size_t used = 0;

	others[0] = '\0';
	if (!stat(suite, &sb) && S_ISDIR(sb.st_mode))
		return folder_digest(suite, digest, err);
	if (strlen(suite) == 16 && strspn(suite, "0123456789abcdef") == 16) {
		memcpy(digest, suite, 17);
		return 0;
	}
	if (sqlite3_prepare_v2(db, versions_sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read suite_results");
	sqlite3_bind_text(st, 1, suite, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(st, 0);

		if (!d)
			continue;
		if (!k++)
			snprintf(digest, 17, "%s", d);
		else if (used + 20 < olen)
			used += (size_t)snprintf(others + used, olen - used, "%s%s", used ? ", " : "", d);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return adb_fail(db, err, "cannot read suite_results");
	if (!k)
		return bpt_error_set(err, -ENOENT, "no results of a suite named '%s' in the database"
				     " (run it with 'blkpeak suite run')", suite);
	return 0;
}

static int find_or_add_w(struct leaderboard *lb, const char *name, const char *kind)
{
	for (int i = 0; i < lb->nw; i++)
		if (!strcmp(lb->w[i].name, name))
			return i;
	struct lb_workload *w = realloc(lb->w, (lb->nw + 1) * sizeof(*w));

	if (!w)
		return -1;
	lb->w = w;
	memset(&w[lb->nw], 0, sizeof(*w));
	snprintf(w[lb->nw].name, LB_NAME_MAX, "%s", name);
	snprintf(w[lb->nw].kind, sizeof(w->kind), "%s", kind);
	w[lb->nw].iops = !strcmp(kind, "qd-sweep");
	return lb->nw++;
}

static int find_or_add_c(struct leaderboard *lb, const char *label, const char *host,
			 long long id)
{
	for (int i = 0; i < lb->nc; i++)
		if (!strcmp(lb->c[i].label, label) && !strcmp(lb->c[i].host, host)) {
			if (id > 0 && (lb->c[i].first <= 0 || id < lb->c[i].first))
				lb->c[i].first = id;
			return i;
		}
	struct lb_config *c = realloc(lb->c, (lb->nc + 1) * sizeof(*c));

	if (!c)
		return -1;
	lb->c = c;
	memset(&c[lb->nc], 0, sizeof(*c));
	snprintf(c[lb->nc].label, LB_NAME_MAX, "%s", label);
	snprintf(c[lb->nc].host, sizeof(c->host), "%s", host);
	c[lb->nc].first = id;
	return lb->nc++;
}

/* One value of one repeat, kept until every row is read. */
struct val {
	int w, c;
	double v;
};

static int by_cell(const void *a, const void *b)
{
	const struct val *x = a, *y = b;

	if (x->w != y->w)
		return x->w - y->w;
	return x->c - y->c;
}

static int by_rank(const void *a, const void *b)
{
	const struct lb_config *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return strcmp(x->label, y->label) ? strcmp(x->label, y->label) : strcmp(x->host, y->host);
}

static int by_first(const void *a, const void *b)
{
	const struct lb_config *x = a, *y = b;
	long long fx = x->first > 0 ? x->first : (1LL << 62), fy = y->first > 0 ? y->first : (1LL << 62);

	if (fx != fy)
		return fx < fy ? -1 : 1;
	return strcmp(x->label, y->label) ? strcmp(x->label, y->label) : strcmp(x->host, y->host);
}

/* Cells from the values; ratios, scores and ranks against baseline b. */
static int compute(struct leaderboard *lb, struct val *v, size_t nv)
{
	double *buf = malloc((nv ? nv : 1) * sizeof(*buf));
	size_t i = 0;

	if (!buf)
		return -ENOMEM;
	for (int w = 0; w < lb->nw; w++)
		if (!(lb->w[w].cell = calloc(lb->nc, sizeof(struct lb_cell)))) {
			free(buf);
			return -ENOMEM;
		}
	qsort(v, nv, sizeof(*v), by_cell);
	while (i < nv) {
		size_t j = i;
		struct lb_cell *cell = &lb->w[v[i].w].cell[v[i].c];

		while (j < nv && v[j].w == v[i].w && v[j].c == v[i].c) {
			buf[j - i] = v[j].v;
			j++;
		}
		cell->n = (int)(j - i);
		cell->v = cmp_spread_of(buf, cell->n);
		i = j;
	}
	free(buf);
	for (int c = 0; c < lb->nc; c++) {
		double logsum = 0;
		int k = 0;

		for (int w = 0; w < lb->nw; w++) {
			struct lb_cell *x = &lb->w[w].cell[c], *b = &lb->w[w].cell[lb->baseline];

			if (!x->n || !b->n || !(x->v.med > 0) || !(b->v.med > 0))
				continue;
			x->ratio = lb->w[w].iops ? x->v.med / b->v.med : b->v.med / x->v.med;
			x->saved_pct = lb->w[w].iops ? 0 : (b->v.med - x->v.med) / b->v.med * 100;
			logsum += log(x->ratio);
			k++;
		}
		lb->c[c].nscore = k;
		lb->c[c].score = k ? exp(logsum / k) : 0;
	}
	return 0;
}

int lb_load(sqlite3 *db, const char *digest, const char *baseline, struct leaderboard *lb,
	    struct bpt_error *err)
{
	sqlite3_stmt *st;
	struct val *v = NULL;
	size_t nv = 0, cap = 0;
	int rc, hosts = 0;

	memset(lb, 0, sizeof(*lb));
	snprintf(lb->digest, sizeof(lb->digest), "%s", digest);
	if (sqlite3_prepare_v2(db, rows_sql, -1, &st, NULL) != SQLITE_OK)
		return adb_fail(db, err, "cannot read suite_results");
	sqlite3_bind_text(st, 1, digest, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *wl = (const char *)sqlite3_column_text(st, 0);
		const char *kind = (const char *)sqlite3_column_text(st, 1);
		const char *label = (const char *)sqlite3_column_text(st, 2);
		const char *host = (const char *)sqlite3_column_text(st, 3);
		const char *name = (const char *)sqlite3_column_text(st, 4);
		int iops = kind && !strcmp(kind, "qd-sweep"), w, c;
		int col = iops ? 6 : 5;
		double x;

		if (!wl || !kind || !label || !host || sqlite3_column_type(st, col) == SQLITE_NULL)
			continue;
		x = iops ? sqlite3_column_double(st, 6) : sqlite3_column_int64(st, 5) / 1e9;
		if (!lb->name[0] && name)
			snprintf(lb->name, sizeof(lb->name), "%s", name);
		w = find_or_add_w(lb, wl, kind);
		c = find_or_add_c(lb, label, host, sqlite3_column_int64(st, 7));
		if (w < 0 || c < 0 || (nv == cap && !(v = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof(*v))))) {
			rc = -ENOMEM;
			break;
		}
		v[nv++] = (struct val){ w, c, x };
	}
	sqlite3_finalize(st);
	if (rc == -ENOMEM) {
		free(v);
		lb_free(lb);
		return bpt_error_set(err, -ENOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE) {
		free(v);
		lb_free(lb);
		return adb_fail(db, err, "cannot read suite_results");
	}
	if (!nv) {
		lb_free(lb);
		return bpt_error_set(err, -ENOENT, "no results of suite version %s in the database", digest);
	}
	/* configurations in the order they were first run; the cells' config
	 * index is fixed from here on */
	{
		struct lb_config *old = malloc(lb->nc * sizeof(*old));
		int *map = malloc(lb->nc * sizeof(*map));

		if (!old || !map) {
			free(old);
			free(map);
			free(v);
			lb_free(lb);
			return bpt_error_set(err, -ENOMEM, "out of memory");
		}
		memcpy(old, lb->c, lb->nc * sizeof(*old));
		for (int i = 0; i < lb->nc; i++)
			old[i].rank = i; /* remember the old index */
		qsort(old, lb->nc, sizeof(*old), by_first);
		for (int i = 0; i < lb->nc; i++)
			map[old[i].rank] = i;
		for (size_t i = 0; i < nv; i++)
			v[i].c = map[v[i].c];
		memcpy(lb->c, old, lb->nc * sizeof(*old));
		free(old);
		free(map);
	}
	lb->baseline = 0;
	if (baseline) {
		lb->baseline = -1;
		for (int i = 0; i < lb->nc; i++)
			if (!strcmp(lb->c[i].label, baseline)) {
				lb->baseline = i;
				break;
			}
		if (lb->baseline < 0) {
			free(v);
			lb_free(lb);
			return bpt_error_set(err, -ENOENT, "--baseline: '%s': no configuration of that"
					     " label in suite version %s", baseline, digest);
		}
	}
	for (int i = 0; i < lb->nc; i++)
		hosts += i == 0 || strcmp(lb->c[i].host, lb->c[0].host);
	lb->several_hosts = hosts > 1;
	for (int i = 0; i < lb->nc; i++) {
		if (lb->several_hosts)
			snprintf(lb->c[i].shown, sizeof(lb->c[i].shown), "%s @ %s", lb->c[i].label,
				 lb->c[i].host);
		else
			snprintf(lb->c[i].shown, sizeof(lb->c[i].shown), "%s", lb->c[i].label);
	}
	rc = compute(lb, v, nv);
	free(v);
	if (rc) {
		lb_free(lb);
		return bpt_error_set(err, rc, "out of memory");
	}
	/* rank: by score; the cells follow their configuration */
	{
		struct lb_config *sorted = malloc(lb->nc * sizeof(*sorted));
		struct lb_cell *cells = malloc(lb->nc * sizeof(*cells));

		if (!sorted || !cells) {
			free(sorted);
			free(cells);
			lb_free(lb);
			return bpt_error_set(err, -ENOMEM, "out of memory");
		}
		memcpy(sorted, lb->c, lb->nc * sizeof(*sorted));
		for (int i = 0; i < lb->nc; i++)
			sorted[i].rank = i;
		qsort(sorted, lb->nc, sizeof(*sorted), by_rank);
		for (int w = 0; w < lb->nw; w++) {
			for (int i = 0; i < lb->nc; i++)
				cells[i] = lb->w[w].cell[sorted[i].rank];
			memcpy(lb->w[w].cell, cells, lb->nc * sizeof(*cells));
		}
		for (int i = 0; i < lb->nc; i++)
			if (sorted[i].rank == lb->baseline) {
				lb->baseline = i;
				break;
			}
		for (int i = 0; i < lb->nc; i++)
			sorted[i].rank = i + 1;
		memcpy(lb->c, sorted, lb->nc * sizeof(*sorted));
		free(sorted);
		free(cells);
	}
	return 0;
}

void lb_free(struct leaderboard *lb)
{
	for (int w = 0; lb->w && w < lb->nw; w++)
		free(lb->w[w].cell);
	free(lb->w);
	free(lb->c);
	lb->w = NULL;
	lb->c = NULL;
	lb->nw = lb->nc = 0;
}
