/*
 * cmd_capture.c — `blkpeak capture`: the command line of the recorder.
 *
 * Order of work, chosen so that every error comes before anything is
 * written and nothing is left half-done:
 *   options -> root? -> devices resolved -> output checked and locked
 *   (an existing file is left as it is) -> BPF loaded -> trace header
 *   (start clock) -> BPF attached -> writer created and the output put
 *   in place (events wait in the ring buffer meanwhile) -> session (until
 *   -t, a signal, or CMD's exit) -> writer closed -> end line.
 * Exit status: 0; 1 on failure, when the trace could not be written
 * whole, or when events were lost (unless --allow-loss); 2 on bad usage;
 * with `-- CMD`, CMD's status when it failed (unless the capture failed
 * first and stopped it). Requests whose completion
 * never reached the BPF side are not lost: they are recorded, flagged,
 * and only warned about.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture.h"
#include "cliutil.h"
#include "commands.h"
#include "fmt.h"
#include "jsonout.h"
#include "outfile.h"

#define SYSFS "/sys"
#define DEFAULT_BUFFER_MIB 8

struct capture_opts {
	const char *output;
	const char *devs[CAPTURE_MAX_DEVS];
	unsigned ndevs;
	struct capture_filters filters;
	uint64_t duration_ns;
	uint64_t buffer_bytes;
	int allow_loss, json, verbose, force_raw, quiet, no_files, submitted_only;
	const char *btf_path;
	char **cmd;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: blkpeak capture -o FILE [options] [-- CMD [ARGS...]]\n"
"\n"
"Record every block I/O request of this machine (or of the disks, process,\n"
"command or cgroup chosen) into a .bpt trace, with eBPF on the block\n"
"tracepoints. Ends after --duration, on Ctrl-C / SIGTERM, or when CMD exits.\n"
"\n"
"  -o, --output FILE       the trace to write (replaced if it exists)\n"
"  -d, --device DEV        record this disk only: NAME, /dev/NAME or MAJOR:MINOR;\n"
"                          repeat for more (at most %d); a partition records\n"
"                          its whole disk. Default: all disks\n"
"  -p, --pid PID           only I/O process PID submitted or caused (the\n"
"                          writeback of what it wrote, its fsync's commit)\n"
"  -c, --comm NAME         only I/O tasks named NAME submitted or caused\n"
"      --cgroup PATH       only I/O from tasks in this cgroup (v2) or below,\n"
"                          or caused by them\n"
"      --submitted-only    -p, -c, --cgroup keep only the I/O those tasks\n"
"                          submitted themselves\n"
"      --duration TIME     stop after TIME (10, 1.5s, 2m); the old short\n"
"                          form, -t, works with a warning until the next\n"
"                          release (-t is the target in replay and measure)\n"
"      --buffer-size SIZE  ring buffer, MiB (or with a unit: 64k, 1g);\n"
"                          default %d, rounded up to a power of two\n"
"      --allow-loss        exit 0 even when events were lost\n"
"      --json              print the summary as JSON on stdout\n"
"  -q, --quiet             no status line (on a terminal, one is redrawn each\n"
"                          second: elapsed, I/Os, IOPS, MB/s, lost events)\n"
"  -v, --verbose           show libbpf's messages and what was attached\n"
"      --no-files          do not record the file (or class) of each I/O\n"
"                          nor the paths of files opened\n"
"      --raw-tp            use raw tracepoints even where tp_btf works\n"
"      --btf FILE          kernel BTF to use when the kernel has none\n"
"  -h, --help              this help\n"
"\n"
"With -- CMD, CMD is run and recorded until it exits; blkpeak exits with\n"
"its status (1 if the capture failed first). SIGINT and SIGTERM then go\n"
"to CMD, and --duration ends it with SIGTERM. When the trace cannot be written\n"
"(a full disk), the end line counts the I/Os the file holds, names the\n"
"error and how many were not written, and the exit status is 1.\n"
"Events lost to a full buffer are counted, written into the\n"
"trace with their time window, and make the exit status 1. A request\n"
"whose completion never reached the BPF programs is recorded with the\n"
"flag \"completion not seen\" and a bound on its completion (the time its\n"
"request was used again, or the end of the capture); a warning counts\n"
"them, and they are no loss.\n",
		CAPTURE_MAX_DEVS, DEFAULT_BUFFER_MIB);
}

static int libbpf_print_all(enum libbpf_print_level level, const char *fmt,
			    va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int libbpf_print_none(enum libbpf_print_level level, const char *fmt,
			     va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* --buffer-size: a plain number is MiB, a number with a unit is bytes. */
static int parse_buffer_size(const char *s, uint64_t *bytes)
{
	uint64_t v;

	if (!parse_u64(s, &v)) {
		if (v == 0 || v > 1024)
			return -ERANGE;
		*bytes = v << 20;
		return 0;
	}
	if (parse_size(s, &v))
		return -EINVAL;
	if (v < 4096 || v > (1ull << 30))
		return -ERANGE;
	*bytes = v;
	return 0;
}

enum { OPT_CGROUP = 256, OPT_BUFFER, OPT_ALLOW_LOSS, OPT_JSON, OPT_RAW, OPT_BTF, OPT_DURATION,
       OPT_NO_FILES, OPT_SUBMITTED };

static int parse_options(int argc, char **argv, struct capture_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "device", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'c' },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER },
		{ "allow-loss", no_argument, NULL, OPT_ALLOW_LOSS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "raw-tp", no_argument, NULL, OPT_RAW },
		{ "no-files", no_argument, NULL, OPT_NO_FILES },
		{ "submitted-only", no_argument, NULL, OPT_SUBMITTED },
		{ "btf", required_argument, NULL, OPT_BTF },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err;
	struct opt_loop ol = { .cmd = "capture", .usage = usage };

	/* '+': options end at the first operand or "--" (-- CMD mode) */
	while ((c = opt_next(&ol, argc, argv, "+:o:d:p:c:t:vqh", longopts)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'd':
			if (o->ndevs >= CAPTURE_MAX_DEVS) {
				pr_err("capture: -d: at most %d devices", CAPTURE_MAX_DEVS);
				return EXIT_USAGE;
			}
			o->devs[o->ndevs++] = optarg;
			break;
		case 'p':
			if (filters_parse_pid(optarg, &o->filters.tgid)) {
				pr_err("capture: --pid: '%s': not a process id", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			err = filters_parse_comm(optarg, o->filters.comm);
			if (err) {
				pr_err("capture: --comm: '%s': %s", optarg,
				       err == -ENAMETOOLONG ?
				       "longer than a task name (15 characters)" :
				       "empty");
				return EXIT_USAGE;
			}
			break;
		case OPT_CGROUP:
			o->filters.cgroup_path = optarg;
			break;
		case 't':
			/* one meaning per short option across commands (issue 25) */
			pr_warn("capture: -t is deprecated, use --duration (-t is the target in replay "
				"and measure); it goes in the next release");
			/* fall through */
		case OPT_DURATION:
			if (parse_duration_ns(optarg, &o->duration_ns) || !o->duration_ns) {
				pr_err("capture: --duration: '%s': not a duration", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_BUFFER:
			err = parse_buffer_size(optarg, &o->buffer_bytes);
			if (err) {
				pr_err("capture: --buffer-size: '%s': %s", optarg,
				       err == -ERANGE ? "out of range (4 KiB to 1 GiB)" :
				       "not a size");
				return EXIT_USAGE;
			}
			break;
		case OPT_ALLOW_LOSS:
			o->allow_loss = 1;
			break;
		case OPT_JSON:
			o->json = 1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case OPT_RAW:
			o->force_raw = 1;
			break;
		case OPT_NO_FILES:
			o->no_files = 1;
			break;
		case OPT_SUBMITTED:
			o->submitted_only = 1;
			break;
		case OPT_BTF:
			o->btf_path = optarg;
			break;
		}
	}
	if (ol.ret == EXIT_OK)
		return -1; /* --help */
	if (ol.ret >= 0)
		return ol.ret;
	if (optind < argc) {
		/* getopt stops at "--" (skipping it) or at the first operand */
		if (strcmp(argv[optind - 1], "--")) {
			pr_err("capture: unexpected argument '%s' (a command goes after --)",
			       argv[optind]);
			return EXIT_USAGE;
		}
		o->cmd = argv + optind;
	}
	if (!o->output) {
		pr_err("capture: -o FILE is required; see 'blkpeak capture --help'");
		return EXIT_USAGE;
	}
	return 0;
}

/* The disks of the trace's device table, chosen before it starts. */
struct dev_table {
	struct bpt_device dev[CAPTURE_MAX_DEVICES];
	unsigned n;
	char names[256]; /* "loop0,loop1", or "all", for the trace's meta */
};

static int table_add(struct dev_table *t, const struct bpt_device *dev)
{
	size_t used = strlen(t->names);

	for (unsigned j = 0; j < t->n; j++)
		if (t->dev[j].major == dev->major && t->dev[j].minor == dev->minor)
			return 0; /* named twice */
	if (t->n >= CAPTURE_MAX_DEVICES)
		return -E2BIG;
	t->dev[t->n++] = *dev;
	if (used < sizeof(t->names))
		snprintf(t->names + used, sizeof(t->names) - used, "%s%s",
			 used ? "," : "", dev->name);
	return 0;
}

/* Resolve -d arguments into the filter and the device table; with none,
 * every disk that has a size goes into the table and nothing is
 * filtered. */
static int setup_devices(struct capture_opts *o, struct dev_table *t)
{
	struct bpt_error error;
	struct bpt_device dev;
	struct dev_spec spec;
	int n, err;

	memset(t, 0, sizeof(*t));
	if (!o->ndevs) {
		n = devices_list_active(SYSFS, t->dev, CAPTURE_MAX_DEVICES);
		if (n < 0) {
			pr_err("capture: %s/block: %s", SYSFS, strerror(-n));
			return n;
		}
		if (n > CAPTURE_MAX_DEVICES) {
			pr_warn("capture: %d disks, a trace holds %d: I/O on the "
				"others is counted as lost; choose with -d",
				n, CAPTURE_MAX_DEVICES);
			n = CAPTURE_MAX_DEVICES;
		}
		t->n = n;
		snprintf(t->names, sizeof(t->names), "all");
		return 0;
	}
	for (unsigned i = 0; i < o->ndevs; i++) {
		if (devices_resolve(SYSFS, o->devs[i], &spec, &error)) {
			pr_err("capture: %s", error.msg);
			return -ENOENT;
		}
		if (spec.part[0])
			fprintf(stderr, "capture: %s is a partition of %s: "
				"recording all of %s's sectors\n",
				o->devs[i], spec.disk, spec.disk);
		err = filters_add_dev(&o->filters, spec.major, spec.minor);
		if (!err)
			err = devices_read(SYSFS, spec.disk, &dev);
		if (!err)
			err = table_add(t, &dev);
		if (err) {
			pr_err("capture: %s: %s", o->devs[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Is the output's file system on a disk we trace? Then say so. */
static int output_on_traced_disk(const struct capture_opts *o, char *disk, size_t len)
{
	char dir[4096], *slash;
	struct dev_spec spec;

	snprintf(dir, sizeof(dir), "%s", o->output);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (devices_of_path(SYSFS, dir, &spec))
		return 0;
	snprintf(disk, len, "%s", spec.disk);
	if (!o->filters.ndevs)
		return 1;
	for (unsigned i = 0; i < o->filters.ndevs; i++)
		if (o->filters.devs[i] == capture_kdev(spec.major, spec.minor))
			return 1;
	return 0;
}

static void set_meta(struct bpt_header *hdr, const char *key, const char *value)
{
	char v[sizeof(hdr->meta[0].value)];

	snprintf(v, sizeof(v), "%.*s", (int)sizeof(v) - 1, value); /* long command lines are cut */
	bpt_header_set_meta(hdr, key, v);
}

/* Each traced disk's partition table (bpt_partitions_set), so replay can
 * map a partition by name; a table that does not fit is left out with a
 * warning (the trace is still whole). */
static void add_partition_tables(struct bpt_header *hdr)
{
	struct bpt_partition parts[BPT_MAX_PARTITIONS]; /* 7 KiB */

	for (unsigned d = 0; d < hdr->ndevices; d++) {
		int n = devices_partitions(SYSFS, hdr->devices[d].name, parts, BPT_MAX_PARTITIONS);

		if (n <= 0)
			continue;
		if (n > BPT_MAX_PARTITIONS || bpt_partitions_set(hdr, d, parts, (unsigned)n))
			pr_warn("capture: %s: its %d partitions do not fit in the trace's header; "
				"not storing its partition table", hdr->devices[d].name, n);
	}
}

static void add_meta(struct bpt_header *hdr, const struct capture_opts *o,
		     int argc, char **argv, const struct dev_table *t,
		     const struct capture_bpf_handle *h)
{
	char buf[1024], num[32];
	size_t used = 0;

	used = snprintf(buf, sizeof(buf), "blkpeak");
	for (int i = 0; i < argc && used < sizeof(buf); i++)
		used += snprintf(buf + used, sizeof(buf) - used, " %s", argv[i]);
	set_meta(hdr, BPT_META_OPTIONS, buf);
	set_meta(hdr, BPT_META_FILTER_DEVICES, t->names);
	if (o->filters.tgid) {
		snprintf(num, sizeof(num), "%u", o->filters.tgid);
		set_meta(hdr, BPT_META_FILTER_PID, num);
	}
	if (o->filters.comm[0])
		set_meta(hdr, BPT_META_FILTER_COMM, o->filters.comm);
	if (o->filters.cgroup_path)
		set_meta(hdr, BPT_META_FILTER_CGROUP, o->filters.cgroup_path);
	set_meta(hdr, BPT_META_CAPTURE_ATTACH, h->attach);
	snprintf(num, sizeof(num), "%lu", (unsigned long)h->ringbuf_bytes);
	set_meta(hdr, BPT_META_CAPTURE_BUFFER, num);
	set_meta(hdr, BPT_META_CAPTURE_OWN_IO, "excluded");
	add_partition_tables(hdr);
}

static int intern_comm(void *ctx, const char *s, uint32_t *id)
{
	return bpt_writer_intern(ctx, s, id);
}

/* The symbolic name of an errno ("ENOSPC"), or its number. */
static const char *errno_name(int err, char buf[24])
{
	const char *name = strerrorname_np(err);

	if (name)
		return name;
	snprintf(buf, 24, "errno %d", err);
	return buf;
}

/*
 * The end line and --json count what the file holds (`written`); when
 * writing failed they name the error and how many of the I/Os the
 * capture had in hand (`seen`) did not reach the file.
 */
static void print_summary(const struct capture_opts *o,
			  const struct session_result *r, uint64_t file_bytes,
			  int write_err)
{
	double secs = r->duration_ns / 1e9;
	double per_io = r->written ? (double)file_bytes / r->written : 0;
	uint64_t unseen = r->unseen_reused + r->unseen_pending;
	uint64_t not_written = r->seen > r->written ? r->seen - r->written : 0;
	char size[32], ename[24];

	if (o->json) {
		struct jw w;

		jw_init(&w, stdout, 0);
		jw_obj(&w);
		jw_kstr(&w, "output", o->output);
		jw_ku64(&w, "ios", r->written);
		jw_ku64(&w, "duration_ns", r->duration_ns);
		jw_ku64(&w, "lost_events", r->lost);
		jw_ku64(&w, "file_bytes", file_bytes);
		jw_knum(&w, "bytes_per_io", per_io, 2);
		jw_ku64(&w, "own_ios_excluded", r->own);
		jw_ku64(&w, "skipped", r->skipped);
		jw_ki64(&w, "cmd_status", r->cmd_status);
		jw_ku64(&w, "completion_not_seen", unseen);
		jw_key(&w, "completion_not_seen_by_bound");
		jw_obj(&w);
		jw_ku64(&w, "reused", r->unseen_reused);
		jw_ku64(&w, "pending", r->unseen_pending);
		jw_obj_end(&w);
		jw_key(&w, "lost_by_cause");
		jw_obj(&w);
		jw_ku64(&w, "ring_buffer_full", r->ring_full);
		jw_ku64(&w, "table_full", r->table_full);
		jw_ku64(&w, "runs_skipped", r->skipped_runs);
		jw_ku64(&w, "unlisted_disks", r->unknown_dev);
		jw_obj_end(&w);
		if (write_err) {
			jw_kstr(&w, "write_error", errno_name(-write_err, ename));
			jw_ku64(&w, "ios_seen", r->seen);
			jw_ku64(&w, "ios_not_written", not_written);
		}
		jw_obj_end(&w);
		jw_finish(&w);
	} else {
		fmt_bytes(file_bytes, size, sizeof(size));
		fprintf(stderr, "capture: %lu I/Os in %.2f s, %lu lost events, %s %s, "
			"%.1f bytes per I/O", (unsigned long)r->written, secs,
			(unsigned long)r->lost, o->output, size, per_io);
		if (write_err)
			fprintf(stderr, "; %s after %lu I/Os: %lu I/Os not written",
				errno_name(-write_err, ename), (unsigned long)r->written,
				(unsigned long)not_written);
		fputc('\n', stderr);
	}
	/* No loss: the request is in the trace, flagged; see the usage. */
	if (unseen)
		fprintf(stderr, "capture: warning: %lu I/Os recorded with their completion "
			"not seen (%lu bounded by the request's reuse, %lu still pending "
			"at the end): flagged in the trace, no latency\n",
			(unsigned long)unseen, (unsigned long)r->unseen_reused,
			(unsigned long)r->unseen_pending);
	if (r->lost && o->verbose)
		fprintf(stderr, "capture: lost: %lu ring buffer full, %lu in-flight table "
			"full, %lu program runs skipped, %lu on unlisted disks\n",
			(unsigned long)r->ring_full, (unsigned long)r->table_full,
			(unsigned long)r->skipped_runs, (unsigned long)r->unknown_dev);
	if (r->skipped)
		fprintf(stderr, "capture: %lu pass-through or zone-management "
			"requests not recorded (a trace has no op for them)\n",
			(unsigned long)r->skipped);
	if (r->lost && !o->allow_loss)
		fprintf(stderr, "capture: events were lost: a larger --buffer-size, "
			"or --allow-loss to accept it\n");
}

/* Header: the start clocks (record time 0), devices, meta. */
static void make_header(struct bpt_header *hdr, const struct capture_opts *o,
			int argc, char **argv, const struct dev_table *t,
			const struct capture_bpf_handle *h)
{
	bpt_header_init(hdr, "capture");
	hdr->columns = BPT_COL_COMPLETION | (o->no_files ? 0 : BPT_COL_FILE | BPT_COL_CAUSE);
	for (unsigned i = 0; i < t->n; i++)
		bpt_header_add_device(hdr, &t->dev[i]);
	add_meta(hdr, o, argc, argv, t, h);
}

/* Exit status: 1 on an error (the capture then stopped CMD itself, so
 * CMD's status says nothing), else CMD's when it failed, else 1 on a
 * loss. */
static int exit_status(const struct capture_opts *o, const struct session_result *r,
		       int err)
{
	if (err)
		return EXIT_FAIL;
	if (r->cmd_status > 0)
		return r->cmd_status;
	if (r->lost && !o->allow_loss)
		return EXIT_FAIL;
	return EXIT_OK;
}

/* Resolve the devices, open the --cgroup, check and lock the output.
 * An existing output is left as it is until the capture really starts.
 * -1 (after saying why) on failure. */
static int prepare(struct capture_opts *o, struct dev_table *table, struct outfile *out,
		   struct bpt_writer_opts *wopts)
{
	char disk[32];
	int err;

	if (setup_devices(o, table))
		return -1;
	if (o->filters.cgroup_path) {
		err = filters_open_cgroup(&o->filters, o->filters.cgroup_path);
		if (err) {
			pr_err("capture: --cgroup: '%s': %s", o->filters.cgroup_path,
			       err == -EMEDIUMTYPE ? "not a cgroup v2 directory" :
			       strerror(-err));
			return -1;
		}
	}
	/* Checked and locked before the BPF programs load. */
	err = outfile_open(out, o->output, &(struct outfile_opts){ .what = "a trace" });
	if (err) {
		pr_err("capture: %s", out->err.msg);
		return -1;
	}
	if (output_on_traced_disk(o, disk, sizeof(disk))) {
		/* its blocks are written from our own context (fdatasync per
		 * block), where the BPF side recognises and leaves them out */
		wopts->sync_blocks = 1;
		if (o->verbose)
			fprintf(stderr, "capture: the output is on %s, which is traced: "
				"the capture's own I/O is left out\n", disk);
	}
	return 0;
}

/* Load the BPF programs, fill the trace header, attach: from here on
 * requests are traced. -1 (after saying why) on failure. */
static int load_and_attach(struct capture_bpf_handle *h, struct capture_opts *o,
			   int argc, char **argv, const struct dev_table *table,
			   struct bpt_header *hdr)
{
	struct loader_opts lo = {
		.filters = &o->filters, .own_tgid = getpid(),
		.ringbuf_bytes = o->buffer_bytes, .force_raw = o->force_raw,
		.btf_path = o->btf_path, .no_files = o->no_files,
		.submitted_only = o->submitted_only,
	};
	struct bpt_error error;

	if (loader_load(h, &lo, &error)) {
		pr_err("capture: %s", error.msg);
		return -1;
	}
	if (o->verbose)
		fprintf(stderr, "capture: attaching %s, ring buffer %lu bytes\n",
			h->attach, (unsigned long)h->ringbuf_bytes);
	make_header(hdr, o, argc, argv, table, h);
	if (loader_attach(h, &error)) {
		pr_err("capture: %s", error.msg);
		return -1;
	}
	return 0;
}

/* Only now is an existing output replaced (outfile.h, "Streaming": the
 * trace is at its path while it is written, so a killed capture leaves it
 * readable); events wait meanwhile in the ring buffer. The writer, or
 * NULL (after saying why). */
static struct bpt_writer *start_writer(struct outfile *out, const struct capture_opts *o,
				       const struct bpt_header *hdr,
				       const struct bpt_writer_opts *wopts)
{
	struct bpt_error berr = { 0 };
	struct bpt_writer *w = NULL;
	int err;

	err = outfile_dup_fd(out);
	if (err < 0) {
		pr_err("capture: %s", out->err.msg);
		return NULL;
	}
	err = bpt_writer_create_fd(&w, err, o->output, hdr, wopts, &berr);
	if (err) {
		pr_err("capture: %s", berr.msg[0] ? berr.msg : strerror(-err));
		return NULL;
	}
	err = outfile_place(out);
	if (err) {
		pr_err("capture: %s", out->err.msg);
		bpt_writer_close(w, NULL);
		return NULL;
	}
	return w;
}

/* Record until the session ends, then close the writer. Returns the
 * session's error or the writer's; *werr is the writer's alone. */
static int record(struct capture_bpf_handle *h, struct bpt_writer *w,
		  const struct capture_opts *o, const struct bpt_header *hdr,
		  const struct dev_table *table, struct session_result *res, int *werr)
{
	struct session_opts sopts = { .duration_ns = o->duration_ns, .cmd = o->cmd,
				      .status = !o->quiet };
	struct bpt_error error, berr = { 0 };
	struct convert conv;
	struct files files;
	int err;

	convert_init(&conv, hdr->start_mono_ns, &h->bits, intern_comm, w);
	for (unsigned i = 0; i < table->n; i++)
		convert_add_dev(&conv, capture_kdev(table->dev[i].major, table->dev[i].minor));
	files_init(&files);
	if (!o->no_files)
		conv.files = &files;
	if (!o->no_files && !h->paths_on)
		fprintf(stderr, "capture: warning: no paths of files as they are written "
			"(writeback_dirty_folio: %s); paths are looked up at the end\n",
			h->paths_error ? strerror(-h->paths_error) : "needs the kernel's BTF");
	err = session_run(h, w, &conv, &sopts, res, &error);
	uint64_t dirtier_missed = loader_counters(h)->dirtier_missed;
	uint64_t paths_lost = loader_counters(h)->paths_lost;

	loader_stop(h);
	if (err)
		pr_err("capture: %s", error.msg);
	if (!o->no_files && files_finish(&files, w) && !err)
		fprintf(stderr, "capture: warning: the path table is incomplete\n");
	if (o->verbose && !o->no_files)
		fprintf(stderr, "capture: %lu files named by I/O, %lu without a path; "
			"%lu page cache writes of an unknown dirtier (dirtied before the "
			"capture, or evicted from its table), %lu paths not sent\n",
			(unsigned long)files.files, (unsigned long)files.unresolved,
			(unsigned long)dirtier_missed, (unsigned long)paths_lost);
	files_free(&files);
	/* the writer's first error is sticky: whether it came while
	 * recording or now, werr names it */
	*werr = bpt_writer_flush(w);
	res->written = bpt_writer_written(w);
	if (bpt_writer_close(w, &berr)) {
		if (!err || !*werr)
			pr_err("capture: %s", berr.msg[0] ? berr.msg : "closing the trace failed");
		if (!*werr)
			*werr = berr.code ? berr.code : -EIO;
		err = *werr;
	}
	return err;
}

int cmd_capture(int argc, char **argv)
{
	struct capture_opts o = { .buffer_bytes = DEFAULT_BUFFER_MIB << 20 };
	struct capture_bpf_handle h = { 0 };
	struct bpt_writer_opts wopts = { 0 };
	struct session_result res = { 0 };
	struct outfile out = { .lock_fd = -1 };
	struct bpt_writer *w;
	struct dev_table table;
	struct bpt_header hdr = { 0 };
	int rc, err, werr;
	struct stat st;

	filters_init(&o.filters);
	rc = parse_options(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if (geteuid() != 0) {
		pr_err("capture: needs root (to load BPF programs)");
		return EXIT_FAIL;
	}
	libbpf_set_print(o.verbose ? libbpf_print_all : libbpf_print_none);

	rc = EXIT_FAIL;
	if (prepare(&o, &table, &out, &wopts) ||
	    load_and_attach(&h, &o, argc, argv, &table, &hdr) ||
	    !(w = start_writer(&out, &o, &hdr, &wopts)))
		goto out;
	err = capture_notify_ready();
	if (err)
		fprintf(stderr, "capture: warning: cannot tell systemd the capture is ready "
			"($NOTIFY_SOCKET): %s\n", strerror(-err));
	err = record(&h, w, &o, &hdr, &table, &res, &werr);
	print_summary(&o, &res, stat(o.output, &st) ? 0 : (uint64_t)st.st_size, werr);
	rc = exit_status(&o, &res, err);
out:
	loader_stop(&h);
	filters_close(&o.filters);
	/* before outfile_place() the new file is removed; after it the trace
	 * stays, also when the capture failed (it reads up to its last block) */
	outfile_close(&out, rc != EXIT_OK ? -ECANCELED : 0);
	bpt_header_free(&hdr);
	return rc;
}
