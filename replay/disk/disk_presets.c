/*
 * disk_presets.c — the drives the model knows by name, and parsing a
 * model spec ("7200", "7200,wcache=off", "rpm=5400,seek_avg=12ms,...",
 * "file=my.disk"). Every figure's source is in schemas/disk-model.md;
 * the ones no data sheet gave are marked "assumed" there and in the
 * summaries below. The table is what `replay --list` prints, and so what
 * blkpeak-replay(1) lists (made from it at build time).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cliutil.h"
#include "filekind.h"
#include "disk_model.h"

#define MS 1e6
#define US 1e3
#define MIB (1024ull * 1024)

struct preset {
	const char *name;
	const char *summary;
	struct disk_params p;
};

static const struct preset presets[] = {
	{ "7200", "WD Caviar WD400BB (2002): 7200 rpm desktop ATA, no queuing",
	  { .kind = DM_HDD, .rpm = 7200, .seek_t2t_ns = 2.0 * MS, .seek_avg_ns = 8.9 * MS,
	    .seek_full_ns = 21 * MS, .rate_outer = 50.0, .rate_inner = 30.5, .queue = 1,
	    .cache_bytes = 2 * MIB, .wcache = 1, .bus_rate = 100, .overhead_ns = 0.3 * MS } },
	{ "5400", "IBM Travelstar 48GH (2002) with Travelstar 5K160 seek ends: 5400 rpm laptop",
	  { .kind = DM_HDD, .rpm = 5400, .seek_t2t_ns = 1.0 * MS, .seek_avg_ns = 12 * MS,
	    .seek_full_ns = 20 * MS, .rate_outer = 30.1, .rate_inner = 16.9, .queue = 1,
	    .cache_bytes = 2 * MIB, .wcache = 1, .bus_rate = 100, .overhead_ns = 1.0 * MS } },
	{ "raptor360", "WD Raptor WD360GD (2003): 10k rpm SATA, no command queuing",
	  { .kind = DM_HDD, .rpm = 10000, .seek_t2t_ns = 0.6 * MS, .seek_avg_ns = 5.2 * MS,
	    .seek_full_ns = 10.5 * MS, .rate_outer = 67, .rate_inner = 41, .queue = 1,
	    .cache_bytes = 8 * MIB, .wcache = 1, .bus_rate = 150, .overhead_ns = 0 } },
	{ "raptor740", "WD Raptor WD740GD (2004): 10k rpm SATA with TCQ (32 commands)",
	  { .kind = DM_HDD, .rpm = 10000, .seek_t2t_ns = 0.6 * MS, .seek_avg_ns = 4.5 * MS,
	    .seek_full_ns = 10.5 * MS, .rate_outer = 86, .rate_inner = 57, .queue = 32,
	    .cache_bytes = 8 * MIB, .wcache = 1, .bus_rate = 150, .overhead_ns = 0 } },
	{ "15k", "Hitachi Ultrastar 15K450 (2008): 15k rpm SCSI/FC, tagged queuing (64)",
	  { .kind = DM_HDD, .rpm = 15000, .seek_t2t_ns = 0.2 * MS, .seek_avg_ns = 3.3 * MS,
	    .seek_full_ns = 6.5 * MS, .rate_outer = 164, .rate_inner = 100, .queue = 64,
	    .cache_bytes = 16 * MIB, .wcache = 0, .bus_rate = 400, .overhead_ns = 0 } },
	{ "ssd", "a generic SATA flash disk: 8 channels, no seek (assumed figures)",
	  { .kind = DM_SSD, .channels = 8, .read_ns = 80 * US, .write_ns = 30 * US,
	    .flush_ns = 500 * US, .channel_rate = 60, .wcache = 1 } },
	{ "instant", "zero cost: every I/O completes when the real one does",
	  { .kind = DM_INSTANT } },
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

const char *disk_preset_name(size_t i)
{
	return i < NPRESETS ? presets[i].name : NULL;
}

static const struct preset *find_preset(const char *name, size_t n)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (strlen(presets[i].name) == n && !strncmp(presets[i].name, name, n))
			return &presets[i];
	return NULL;
}

int disk_params_preset(const char *name, struct disk_params *p)
{
	const struct preset *pr = find_preset(name, strlen(name));

	if (!pr)
		return -ENOENT;
	*p = pr->p;
	snprintf(p->name, sizeof(p->name), "%s", pr->name);
	return 0;
}

const char *disk_preset_summary(const char *name)
{
	const struct preset *pr = find_preset(name, strlen(name));

	return pr ? pr->summary : NULL;
}

/* ------------------------------------------------------------- parsing */

/* A time that must carry its unit (a bare "8.9" is refused: seconds or
 * milliseconds would both be a guess). */
static int parse_time(const char *key, const char *v, double *out, struct bpt_error *error)
{
	uint64_t ns;
	size_t n = strlen(v);

	if (!n || isdigit((unsigned char)v[n - 1]) || v[n - 1] == '.')
		return bpt_error_set(error, -EINVAL, "%s=%s: give a unit (ms, us, ns)", key, v);
	if (parse_duration_ns(v, &ns))
		return bpt_error_set(error, -EINVAL, "%s=%s: not a duration", key, v);
	*out = (double)ns;
	return 0;
}

static int parse_rate(const char *key, const char *v, double *out, struct bpt_error *error)
{
	if (parse_double(v, out) || !(*out > 0) || *out > 1e6)
		return bpt_error_set(error, -EINVAL, "%s=%s: not a rate in MB/s (a number > 0)", key, v);
	return 0;
}

static int parse_count(const char *key, const char *v, unsigned *out, unsigned max,
		       struct bpt_error *error)
{
	uint64_t n;

	if (parse_u64(v, &n) || n < 1 || n > max) {
		return bpt_error_set(error, -EINVAL, "%s=%s: not a whole number from 1 to %u", key, v, max);
	}
	*out = (unsigned)n;
	return 0;
}

static int parse_zones(const char *v, struct disk_params *p, struct bpt_error *error)
{
	char buf[1024], *save = NULL, *tok;
	unsigned n = 0;

	if (strlen(v) >= sizeof(buf))
		return bpt_error_set(error, -EINVAL, "zones=...: too long");
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (n == DM_MAX_ZONES)
			return bpt_error_set(error, -EINVAL, "zones=%s: more than %d zones", v, DM_MAX_ZONES);
		if (parse_rate("zones", tok, &p->zone_rate[n], error))
			return -EINVAL;
		n++;
	}
	if (n < 2)
		return bpt_error_set(error, -EINVAL, "zones=%s: give two or more rates, outer first: zones=%s",
			   v, "60/55/50/45/40");
	p->nzones = n;
	p->zones_given = 1;
	p->rate_outer = p->zone_rate[0];
	p->rate_inner = p->zone_rate[n - 1];
	return 0;
}

static int apply_file(const char *path, struct disk_params *p, int depth, struct bpt_error *error);

/* The keys one list (a spec's items, or one file's lines) has set: a key
 * given twice is refused, not silently the last one. */
struct keys_seen {
	char key[40][32];
	unsigned n;
};

/* One item: a preset name, key=value or file=PATH. */
static int apply_item(const char *item, struct disk_params *p, int depth, struct keys_seen *seen,
		      struct bpt_error *error)
{
	const char *eq = strchr(item, '=');
	char key[32];
	const char *v;
	int on;

	if (!eq) {
		if (disk_params_preset(item, p)) {
			char names[160] = "";

			for (size_t i = 0; i < NPRESETS; i++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
					 i ? ", " : "", presets[i].name);
			return bpt_error_set(error, -EINVAL, "'%s': not a disk model (presets: %s; or key=value)",
				   item, names);
		}
		return 0;
	}
	if ((size_t)(eq - item) >= sizeof(key))
		return bpt_error_set(error, -EINVAL, "'%.40s': unknown model key", item);
	memcpy(key, item, (size_t)(eq - item));
	key[eq - item] = 0;
	v = eq + 1;
	for (unsigned i = 0; i < seen->n; i++)
		if (!strcmp(seen->key[i], key))
			return bpt_error_set(error, -EINVAL, "'%.60s': %s= given twice", item, key);
	if (seen->n < sizeof(seen->key) / sizeof(seen->key[0]))
		memcpy(seen->key[seen->n++], key, sizeof(key));
	if (strcmp(key, "file") && strcmp(key, "preset"))
		snprintf(p->name, sizeof(p->name), "custom");
	if (!strcmp(key, "preset"))
		return apply_item(v, p, depth, seen, error);
	if (!strcmp(key, "file"))
		return apply_file(v, p, depth + 1, error);
	if (!strcmp(key, "type")) {
		if (!strcmp(v, "hdd"))
			p->kind = DM_HDD;
		else if (!strcmp(v, "ssd"))
			p->kind = DM_SSD;
		else if (!strcmp(v, "instant"))
			p->kind = DM_INSTANT;
		else
			return bpt_error_set(error, -EINVAL, "type=%s: hdd, ssd or instant", v);
		return 0;
	}
	if (!strcmp(key, "rpm")) {
		if (parse_double(v, &p->rpm) || p->rpm < 1000 || p->rpm > 30000)
			return bpt_error_set(error, -EINVAL, "rpm=%s: not a spindle speed (1000 to 30000)", v);
		return 0;
	}
	if (!strcmp(key, "seek_t2t"))
		return parse_time(key, v, &p->seek_t2t_ns, error);
	if (!strcmp(key, "seek_avg"))
		return parse_time(key, v, &p->seek_avg_ns, error);
	if (!strcmp(key, "seek_full"))
		return parse_time(key, v, &p->seek_full_ns, error);
	if (!strcmp(key, "overhead"))
		return parse_time(key, v, &p->overhead_ns, error);
	if (!strcmp(key, "read_lat"))
		return parse_time(key, v, &p->read_ns, error);
	if (!strcmp(key, "write_lat"))
		return parse_time(key, v, &p->write_ns, error);
	if (!strcmp(key, "flush_lat"))
		return parse_time(key, v, &p->flush_ns, error);
	if (!strcmp(key, "rate_outer") || !strcmp(key, "rate_inner")) {
		int rc = parse_rate(key, v, key[5] == 'o' ? &p->rate_outer : &p->rate_inner, error);

		p->zones_given = 0;
		return rc;
	}
	if (!strcmp(key, "zones"))
		return parse_zones(v, p, error);
	if (!strcmp(key, "bus"))
		return parse_rate(key, v, &p->bus_rate, error);
	if (!strcmp(key, "channel_rate"))
		return parse_rate(key, v, &p->channel_rate, error);
	if (!strcmp(key, "channels"))
		return parse_count(key, v, &p->channels, 256, error);
	if (!strcmp(key, "queue")) {
		if (!strcmp(v, "fifo") || !strcmp(v, "none")) {
			p->queue = 1;
			return 0;
		}
		return parse_count(key, v, &p->queue, 1024, error);
	}
	if (!strcmp(key, "cache")) {
		if (parse_size(v, &p->cache_bytes) || p->cache_bytes > (1ull << 34))
			return bpt_error_set(error, -EINVAL, "cache=%s: not a size (0 to 16g)", v);
		return 0;
	}
	if (!strcmp(key, "wcache")) {
		on = !strcmp(v, "on") ? 1 : !strcmp(v, "off") ? 0 : -1;
		if (on < 0)
			return bpt_error_set(error, -EINVAL, "wcache=%s: on or off", v);
		p->wcache = on;
		return 0;
	}
	return bpt_error_set(error, -EINVAL, "'%s': unknown model key (rpm, seek_t2t, seek_avg, seek_full, "
			     "rate_outer, rate_inner, zones, queue, cache, wcache, bus, overhead, "
			     "type, channels, read_lat, write_lat, flush_lat, channel_rate, file)",
		   key);
}

/* A model file's bounds: a model is a few dozen lines. */
#define MODEL_FILE_MAX (64u << 10)
#define MODEL_ITEM_MAX 1000 /* bytes of a line without its comment */

/*
 * A model file: one key=value (or preset name) per line, '#' comments.
 * Only a regular file of at most MODEL_FILE_MAX bytes (a device or a FIFO
 * would be read forever or block), read whole; a comment may be of any
 * length, the rest of a line at most MODEL_ITEM_MAX bytes.
 */
static int apply_file(const char *path, struct disk_params *p, int depth, struct bpt_error *error)
{
	struct keys_seen seen = { .n = 0 };
	struct stat st;
	char *text, *line, *next;
	ssize_t got;
	int fd, rc = 0, lineno = 0;

	if (depth > 4)
		return bpt_error_set(error, -EINVAL, "%s: model files nest deeper than 4", path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		return bpt_error_set(error, rc, "%s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st)) {
		rc = -errno;
		close(fd);
		return bpt_error_set(error, rc, "%s: %s", path, strerror(-rc));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return bpt_error_set(error, -EINVAL, "%s: %s, not a disk model file (a regular file)",
				     path, file_kind(st.st_mode));
	}
	if (st.st_size > MODEL_FILE_MAX) {
		close(fd);
		return bpt_error_set(error, -EFBIG, "%s: larger than %u KiB, not a disk model file",
				     path, MODEL_FILE_MAX >> 10);
	}
	if (!(text = malloc(MODEL_FILE_MAX + 2))) {
		close(fd);
		return bpt_error_set(error, -ENOMEM, "%s: out of memory", path);
	}
	got = read(fd, text, MODEL_FILE_MAX + 1); /* one byte more: it grew */
	rc = got < 0 ? -errno : 0;
	close(fd);
	if (rc || got > (ssize_t)MODEL_FILE_MAX) {
		free(text);
		if (rc)
			return bpt_error_set(error, rc, "%s: %s", path, strerror(-rc));
		return bpt_error_set(error, -EFBIG, "%s: larger than %u KiB, not a disk model file",
				     path, MODEL_FILE_MAX >> 10);
	}
	text[got] = 0;
	for (line = text; !rc && line < text + got; line = next) {
		char *s = line, *e, *nl = memchr(line, '\n', (size_t)(text + got - line));
		char *hash;
		struct bpt_error inner;

		next = nl ? nl + 1 : text + got;
		if (nl)
			*nl = 0;
		lineno++;
		if (strlen(line) != (size_t)((nl ? nl : text + got) - line)) {
			rc = bpt_error_set(error, -EINVAL, "%s:%d: a NUL byte: not a disk model file",
					   path, lineno);
			break;
		}
		if ((hash = strchr(line, '#')))
			*hash = 0;
		while (isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = 0;
		if (!*s)
			continue;
		if (e - s > MODEL_ITEM_MAX) {
			rc = bpt_error_set(error, -EINVAL, "%s:%d: longer than %u bytes (without its "
					   "comment)", path, lineno, MODEL_ITEM_MAX);
			break;
		}
		/* "key = value" is accepted too */
		char *eq = strchr(s, '=');
		if (eq) {
			char *k = eq, *v = eq + 1;

			while (k > s && isspace((unsigned char)k[-1]))
				k--;
			*k = 0;
			while (isspace((unsigned char)*v))
				v++;
			char kv[MODEL_ITEM_MAX + 2];

			snprintf(kv, sizeof(kv), "%s=%s", s, v);
			rc = apply_item(kv, p, depth, &seen, &inner);
		} else {
			rc = apply_item(s, p, depth, &seen, &inner);
		}
		if (rc)
			bpt_error_set(error, rc, "%s:%d: %s", path, lineno, inner.msg);
	}
	free(text);
	return rc;
}

int disk_params_parse(const char *spec, struct disk_params *p, struct bpt_error *error)
{
	char buf[1024], *save = NULL, *tok;
	int rc;

	memset(p, 0, sizeof(*p));
	if (!*spec)
		return bpt_error_set(error, -EINVAL, "empty disk model (a preset such as 7200, or key=value)");
	if (strlen(spec) >= sizeof(buf))
		return bpt_error_set(error, -EINVAL, "disk model too long");
	snprintf(buf, sizeof(buf), "%s", spec);
	/* items not starting from a preset start from an empty hdd */
	p->kind = DM_HDD;
	p->queue = 1;
	p->bus_rate = 150;
	snprintf(p->name, sizeof(p->name), "custom");
	struct keys_seen seen = { .n = 0 };

	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		rc = apply_item(tok, p, 0, &seen, error);
		if (rc)
			return rc;
	}
	return disk_params_check(p, error);
}

int disk_params_check(const struct disk_params *p, struct bpt_error *error)
{
	char a[32], b[32];

	switch (p->kind) {
	case DM_INSTANT:
		return 0;
	case DM_SSD:
		if (!p->channels || !(p->channel_rate > 0))
			return bpt_error_set(error, -EINVAL, "ssd model needs channels=N and channel_rate=MB/s");
		return 0;
	case DM_HDD:
		break;
	}
	if (!(p->rpm >= 1000))
		return bpt_error_set(error, -EINVAL, "disk model needs rpm=N (1000 to 30000)");
	if (!(p->seek_t2t_ns > 0) || !(p->seek_avg_ns > 0) || !(p->seek_full_ns > 0))
		return bpt_error_set(error, -EINVAL, "disk model needs seek_t2t, seek_avg and seek_full "
				     "(e.g. seek_t2t=2ms,seek_avg=8.9ms,seek_full=21ms)");
	if (p->seek_t2t_ns > p->seek_avg_ns || p->seek_avg_ns > p->seek_full_ns) {
		snprintf(a, sizeof(a), "%.3g", p->seek_avg_ns / 1e6);
		snprintf(b, sizeof(b), "%.3g/%.3g", p->seek_t2t_ns / 1e6, p->seek_full_ns / 1e6);
		return bpt_error_set(error, -EINVAL, "seek times must grow: seek_t2t <= seek_avg (%s ms) <= "
				     "seek_full (t2t/full %s ms)", a, b);
	}
	if (!p->zones_given && (!(p->rate_outer > 0) || !(p->rate_inner > 0)))
		return bpt_error_set(error, -EINVAL, "disk model needs rate_outer and rate_inner in MB/s, "
				     "or zones=R/R/...");
	if (!p->zones_given && p->rate_inner > p->rate_outer)
		return bpt_error_set(error, -EINVAL, "rate_inner is above rate_outer: outer tracks are the "
				     "faster ones");
	if (!(p->bus_rate > 0))
		return bpt_error_set(error, -EINVAL, "disk model needs bus=MB/s");
	if (!p->queue)
		return bpt_error_set(error, -EINVAL, "queue=0: use queue=fifo (1) or a depth");
	return 0;
}

void disk_params_describe(const struct disk_params *p, char *buf, size_t len)
{
	char q[32], c[16];
	const char *sum = disk_preset_summary(p->name);

	switch (p->kind) {
	case DM_INSTANT:
		snprintf(buf, len, "%s: zero cost", p->name);
		return;
	case DM_SSD:
		snprintf(buf, len, "%s: ssd, %u channels of %.0f MB/s, read %.0f us, write %.0f us",
			 p->name, p->channels, p->channel_rate, p->read_ns / 1e3, p->write_ns / 1e3);
		return;
	case DM_HDD:
		break;
	}
	if (p->queue > 1)
		snprintf(q, sizeof(q), "queuing %u", p->queue);
	else
		snprintf(q, sizeof(q), "FIFO");
	snprintf(buf, len, "%s%s%s%s: %.0f rpm, seek %.1f/%.1f/%.1f ms, %.0f-%.0f MB/s, %s, "
			   "%s read-ahead, write cache %s",
		 p->name, sum ? " (" : "", sum ? sum : "", sum ? ")" : "", p->rpm,
		 p->seek_t2t_ns / 1e6, p->seek_avg_ns / 1e6, p->seek_full_ns / 1e6,
		 p->rate_outer, p->rate_inner, q, fmt_bytes(p->cache_bytes, c, sizeof(c)),
		 p->wcache ? "on" : "off");
}
