/*
 * cmd_replay.c — `blkpeak replay`: the command line. Parses and checks the
 * options into struct replay_opts; replay_run.c does the work.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cliutil.h"
#include "commands.h"
#include "disk/disk_model.h"
#include "engine/engine.h"
#include "filemap.h"
#include "region.h"
#include "replay_run.h"
#include "run_writer.h"
#include "target.h"
#include "xform.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: blkpeak replay TRACE --target SPEC [options]\n"
"       blkpeak replay TRACE TRACE... --target SPEC [--mix-offset NAME=TIME] [options]\n"
"       blkpeak replay --list\n"
"\n"
"Replay a trace's I/Os on a block device, a file or a virtual array and\n"
"report how the target did. Writes destroy data: see the safety rules.\n"
"\n"
"target:\n"
"  -t, --target SPEC      /dev/sdX, a regular file, or a virtual array:\n"
"                         raid0:chunk=64k:A,B[,...]  raid1:A,B[,...]\n"
"                         raid10:chunk=64k:A,B,C,D   linear:A,B[,...]\n"
"                         raid5:chunk=64k[:layout=L][:missing=N]:A,B,C[,...]\n"
"                         raid6:chunk=64k[:layout=L][:missing=N[,M]]:A,B,C,D[,...]\n"
"                         an array may have a controller's write-back cache,\n"
"                         cache=SIZE[:destage=PCT] (schemas/array-layouts.md):\n"
"                         raid5:chunk=64k:cache=128m:A,B,C,D\n"
"                         any path may be an emulated disk, hdd:MODEL:PATH:\n"
"                         the I/O is done on PATH, its completion held until\n"
"                         the model's disk would finish it; MODEL: a preset\n"
"                         (--list) and/or key=value,...\n"
"                         (schemas/disk-model.md):\n"
"                         raid0:chunk=64k:hdd:7200:A,hdd:7200,wcache=off:B\n"
"  --map DEV=SPEC         send the I/Os of recorded device DEV (name, /dev/name\n"
"                         or major:minor) to SPEC; repeatable; --target takes\n"
"                         the devices no --map names; DEV may be a glob\n"
"                         ('vol1*') or a list ('vol1|vol7|hm_*') of devices\n"
"                         for one SPEC; a device two --map keys name is refused\n"
"  --map DEV:START-END=SPEC[@OFFSET]\n"
"                         send the bytes START to END of DEV (END left out:\n"
"                         to its end) to SPEC, START landing at 0 there (or\n"
"                         at OFFSET); I/Os crossing a bound are cut there;\n"
"                         sizes: 1G, 512M, 4k, or 2048s (sectors); the rest\n"
"                         of DEV goes to --map DEV=SPEC or --target\n"
"  --map PART=SPEC[@OFFSET]\n"
"                         the same for partition PART (sda2, loop0p2) of a\n"
"                         recorded disk, when the capture stored its table\n"
"  --map path:GLOB=SPEC[@OFFSET]\n"
"                         send the data I/O of the files whose recorded path\n"
"                         matches GLOB (fnmatch, '*' matches '/' too; '|'\n"
"                         between alternatives: 'path:*/scratch/*|*.mpc')\n"
"                         to SPEC, at their recorded offsets, or packed from\n"
"                         OFFSET: each file whole, in the order of first I/O;\n"
"                         needs a capture with file columns (format 1.3)\n"
"  --map comm:NAME=SPEC[@OFFSET]\n"
"                         the same for the I/O a task caused (its comm, a\n"
"                         glob; the submitter where the cause is unknown);\n"
"                         metadata and journal I/O stay; an I/O holding bytes\n"
"                         of two placements is cut; a file or task two maps\n"
"                         take is refused (blkpeak-replay(1): FILES AND TASKS)\n"
"  --offset BYTES         shift every I/O by BYTES on the target\n"
"  --fit wrap|scale       place a trace larger than the target: offsets modulo\n"
"                         its size, or scaled to it (default: refuse)\n"
"  --create SIZE          create a missing target file, or extend a smaller one\n"
"\n"
"safety:\n"
"  --allow-write          let the trace's writes, discards and write-zeroes\n"
"                         reach a block device (refused without it)\n"
"  --writes skip|as-reads leave writes out, or read the same ranges instead\n"
"  (always refused, even for reads: a device that is mounted, swap, held\n"
"  (sysfs holders) or open exclusively elsewhere, and a device or file\n"
"  that backs a loop device or is a swap file, also as an array member)\n"
"\n"
"timing:\n"
"  --timing MODE          original (default): at the recorded times / --speed;\n"
"                         afap: as fast as possible, in order, up to the depth;\n"
"                         causal: each I/O after those that had completed\n"
"                         before it was issued, plus its think time; an I/O\n"
"                         whose completion the capture did not see counts\n"
"                         as completed at its bound (when its request was\n"
"                         used again): I/Os issued later wait for it, earlier\n"
"                         ones do not, and one pending at the capture's end\n"
"                         holds up none\n"
"  --speed X              time scale for original and causal (default 1;\n"
"                         above 0, below 1e6; refused when the trace would\n"
"                         last 2^62 ns or more at that speed)\n"
"  --queue-depth N        most I/Os outstanding (default: afap the trace's\n"
"                         maximum, of I/Os whose completion was seen; original\n"
"                         and causal 1024 or that maximum)\n"
"  --no-idle              causal: leave out think time\n"
"  --realtime             run the issuer SCHED_FIFO (sleeping until 80 us\n"
"                         before each I/O) and lock memory; warn when refused\n"
"                         (by default it runs SCHED_OTHER on its own CPU,\n"
"                         spinning the last 5 ms before each I/O)\n"
"  --poll                 afap: while the queue is full, poll for completions\n"
"                         for up to 50 us before sleeping (more CPU; faster\n"
"                         on a fast device when a CPU is free)\n"
"  --no-warmup            leave out the warm-up: before time 0, one 4 KiB read\n"
"                         at offset 0 of every target member, recorded nowhere,\n"
"                         so the first I/O does not pay the kernel's cold path\n"
"\n"
"mix (two to 8 traces, replayed together on the targets):\n"
"                         their I/Os interleaved by time, each recording's\n"
"                         devices mapped by its own table (--target, or a\n"
"                         --map naming a device of any of them), causal\n"
"                         dependencies kept within each recording; the run\n"
"                         file tags each I/O with its recording's name (the\n"
"                         file name without folder and extension) as its\n"
"                         comm, and names them in meta mix.K.*\n"
"  --mix-offset NAME=TIME start recording NAME (its name or path) TIME\n"
"                         (2s, 500ms; up to 24h) after the others\n"
"                         (default: all at their start); repeatable\n"
"\n"
"output:\n"
"  -o, --output RUN.bpt   write the run: per I/O scheduled, issue and\n"
"                         completion time, member and result\n"
"  --verify               record the replay on the members with the eBPF\n"
"                         capture and compare: every I/O seen by the kernel\n"
"                         with its member, offset, size and operation, and\n"
"                         the issue error from the kernel's view (root, BPF)\n"
"  --label NAME           the run's name in analyze's tables and charts (up\n"
"                         to 63 bytes; default: a short name from the\n"
"                         target, e.g. \"raid0 x2 64k\"), in its meta \"label\"\n"
"  --repeat N             replay N times (1-1000), one after the other; with\n"
"                         -o RUN.bpt each run goes to RUN.1.bpt ... RUN.N.bpt\n"
"                         (meta \"repeat\" K/N), and analyze compare shows the\n"
"                         median and range of the repeats; stops at the first\n"
"                         run that fails\n"
"  --json                 print the summary as JSON (with --repeat: one\n"
"                         object per run, one per line)\n"
"  --protect PATH         refuse to run when PATH is a member of the target\n"
"                         (repeatable; measure passes its -o)\n"
"  --conflicts keep|order|drop\n"
"                         I/Os that overlap an earlier one in flight with\n"
"                         them in the recording: issue as recorded (default),\n"
"                         after the earlier one completes (--timing causal),\n"
"                         or leave out; counted in the summary\n"
"  --stop-on-error        stop at the first failed I/O (default: go on and\n"
"                         count it)\n"
"  --engine NAME          an engine of --list (null: no I/O, measures the\n"
"                         scheduler); default libaio (the faster here);\n"
"                         an engine that cannot run here is refused;\n"
"                         --null-latency T for the null engine\n"
"  --list                 the engines and the disk model presets\n"
"  -h, --help             this text\n"
"\n"
"A replay that stops before its last I/O (SIGINT, SIGTERM, SIGHUP,\n"
"--stop-on-error, an engine failure) still writes the run file, marked\n"
"partial: the summary, the run file and analyze say \"PARTIAL: DONE of\n"
"TOTAL I/Os (WHY)\", and analyze compare refuses it unless told to allow it.\n"
"\n"
"Exit status: 0 when every I/O succeeded, 1 when the replay could not start,\n"
"stopped early (partial) or had I/O errors, 2 for bad usage.\n");
	fprintf(f, "\n%s", xform_usage);
}

enum {
	OPT_TIMING = 256, OPT_SPEED, OPT_QD, OPT_NO_IDLE, OPT_ALLOW_WRITE, OPT_WRITES,
	OPT_FIT, OPT_OFFSET, OPT_CREATE, OPT_MAP, OPT_STOP, OPT_JSON, OPT_ENGINE,
	OPT_NULL_LAT, OPT_REALTIME, OPT_NO_WARMUP, OPT_POLL, OPT_VERIFY, OPT_PROTECT, OPT_LABEL,
	OPT_REPEAT, OPT_LIST, OPT_MIX_OFFSET, OPT_CONFLICTS,
};

static const struct option long_opts[] = {
	{ "target", required_argument, NULL, 't' },
	{ "output", required_argument, NULL, 'o' },
	{ "timing", required_argument, NULL, OPT_TIMING },
	{ "speed", required_argument, NULL, OPT_SPEED },
	{ "queue-depth", required_argument, NULL, OPT_QD },
	{ "no-idle", no_argument, NULL, OPT_NO_IDLE },
	{ "allow-write", no_argument, NULL, OPT_ALLOW_WRITE },
	{ "writes", required_argument, NULL, OPT_WRITES },
	{ "fit", required_argument, NULL, OPT_FIT },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "create", required_argument, NULL, OPT_CREATE },
	{ "map", required_argument, NULL, OPT_MAP },
	{ "stop-on-error", no_argument, NULL, OPT_STOP },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "null-latency", required_argument, NULL, OPT_NULL_LAT },
	{ "realtime", no_argument, NULL, OPT_REALTIME },
	{ "no-warmup", no_argument, NULL, OPT_NO_WARMUP },
	{ "poll", no_argument, NULL, OPT_POLL },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "protect", required_argument, NULL, OPT_PROTECT },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "mix-offset", required_argument, NULL, OPT_MIX_OFFSET },
	{ "conflicts", required_argument, NULL, OPT_CONFLICTS },
	XFORM_LONG_OPTIONS,
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* --map KEY=SPEC[@OFFSET] (eq: the '=') into *m, cutting arg (argv is
 * ours to cut); what names no recorded device is checked against the
 * trace later (replay_run.c). 0, or EXIT_USAGE after printing why. */
static int parse_map(const char *arg, char *eq, struct replay_map *m)
{
	struct bpt_error error;
	enum filemap_kind kind;
	const char *glob;
	uint64_t start, end;
	size_t len;
	int to_end, rc;

	*eq = 0;
	m->dev = arg;
	m->spec = eq + 1;
	rc = filemap_parse_key(arg, &kind, &glob, &error);
	if (rc == 0)
		rc = region_parse_key(arg, &len, &start, &end, &to_end, &error);
	if (rc < 0) {
		pr_err("replay: --map: %s", error.msg);
		return EXIT_USAGE;
	}
	rc = region_parse_at(eq + 1, &len, &m->at, &error);
	if (rc < 0) {
		pr_err("replay: --map %s=%s: %s", arg, eq + 1, error.msg);
		return EXIT_USAGE;
	}
	if (rc == 1) {
		eq[1 + len] = 0;
		m->at_text = eq + 2 + len;
	}
	return 0;
}

/* A --map key without "/dev/", to compare keys. */
static const char *map_key(const char *dev)
{
	return strncmp(dev, "/dev/", 5) ? dev : dev + 5;
}

/* Parse one option into o; 0, or EXIT_USAGE after printing why. */
static int parse_opt(int c, const char *arg, struct replay_opts *o)
{
	uint64_t v;
	char *eq;
	int rc;

	switch (c) {
	case 't': o->target = arg; return 0;
	case 'o': o->output = arg; return 0;
	case OPT_TIMING:
		if (timing_parse(arg, &o->timing) == 0)
			return 0;
		pr_err("replay: --timing: '%s': not original, afap or causal", arg);
		return EXIT_USAGE;
	case OPT_SPEED:
		if (parse_double(arg, &o->speed) == 0 && o->speed > 0 && o->speed < 1e6)
			return 0;
		pr_err("replay: --speed: '%s': not a number above 0 and below 1e6", arg);
		return EXIT_USAGE;
	case OPT_QD:
		if (parse_u64(arg, &v) == 0 && v >= 1 && v <= 65536) {
			o->depth = (unsigned)v;
			return 0;
		}
		pr_err("replay: --queue-depth: '%s': not a number from 1 to 65536", arg);
		return EXIT_USAGE;
	case OPT_NO_IDLE: o->no_idle = 1; return 0;
	case OPT_ALLOW_WRITE: o->allow_write = 1; return 0;
	case OPT_WRITES:
		if (!strcmp(arg, "skip"))
			o->writes = WRITES_SKIP;
		else if (!strcmp(arg, "as-reads"))
			o->writes = WRITES_AS_READS;
		else {
			pr_err("replay: --writes: '%s': not skip or as-reads", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_FIT:
		if (fit_mode_parse(arg, &o->fit) == 0)
			return 0;
		pr_err("replay: --fit: '%s': not wrap or scale", arg);
		return EXIT_USAGE;
	case OPT_OFFSET:
		if (parse_size(arg, &o->offset) == 0 && o->offset % 512 == 0)
			return 0;
		pr_err("replay: --offset: '%s': not a size in whole 512-byte sectors", arg);
		return EXIT_USAGE;
	case OPT_CREATE:
		if (parse_size(arg, &o->create_size) == 0 && o->create_size >= 512)
			return 0;
		pr_err("replay: --create: '%s': not a size of 512 bytes or more", arg);
		return EXIT_USAGE;
	case OPT_MAP:
		eq = strchr(arg, '=');
		if (!eq || eq == arg || !eq[1]) {
			pr_err("replay: --map: '%s': expected %s=SPEC", arg,
			       !strncmp(arg, "path:", 5) ? "path:GLOB" :
			       !strncmp(arg, "comm:", 5) ? "comm:NAME" : "RECORDED_DEV");
			return EXIT_USAGE;
		}
		if (o->nmap == LOAD_MAX_TARGETS) {
			pr_err("replay: --map: more than %d maps", LOAD_MAX_TARGETS);
			return EXIT_USAGE;
		}
		if ((rc = parse_map(arg, eq, &o->map[o->nmap])))
			return rc;
		/* a key given twice: the last would silently win */
		for (unsigned m = 0; m < o->nmap; m++)
			if (!strcmp(map_key(o->map[m].dev), map_key(o->map[o->nmap].dev))) {
				pr_err("replay: --map %s=%s: %s is mapped already (--map %s=%s)",
				       o->map[o->nmap].dev, o->map[o->nmap].spec, o->map[o->nmap].dev,
				       o->map[m].dev, o->map[m].spec);
				return EXIT_USAGE;
			}
		o->nmap++;
		return 0;
	case OPT_STOP: o->stop_on_error = 1; return 0;
	case OPT_JSON: o->json = 1; return 0;
	case OPT_REALTIME: o->realtime = 1; return 0;
	case OPT_NO_WARMUP: o->no_warmup = 1; return 0;
	case OPT_POLL: o->poll = 1; return 0;
	case OPT_VERIFY: o->verify = 1; return 0;
	case OPT_PROTECT:
		if (o->nprotect == sizeof(o->protect) / sizeof(o->protect[0])) {
			pr_err("replay: --protect: more than %zu paths",
			       sizeof(o->protect) / sizeof(o->protect[0]));
			return EXIT_USAGE;
		}
		o->protect[o->nprotect++] = arg;
		return 0;
	case OPT_ENGINE: o->engine = arg; return 0;
	case OPT_LABEL:
		if (!*arg || strlen(arg) > REPLAY_LABEL_MAX) {
			pr_err("replay: --label: '%s': give a name of 1 to %d bytes", arg,
			       REPLAY_LABEL_MAX);
			return EXIT_USAGE;
		}
		o->label = arg;
		return 0;
	case OPT_REPEAT:
		if (parse_u64(arg, &v) == 0 && v >= 1 && v <= 1000) {
			o->repeats = (unsigned)v;
			return 0;
		}
		pr_err("replay: --repeat: '%s': not a number from 1 to 1000", arg);
		return EXIT_USAGE;
	case OPT_CONFLICTS:
		if (conflicts_parse(arg, &o->conflicts) == 0)
			return 0;
		pr_err("replay: --conflicts: '%s': not keep, order or drop", arg);
		return EXIT_USAGE;
	case OPT_MIX_OFFSET: /* a mix: NAME=TIME (mix.h) */
		eq = strchr(arg, '=');
		if (o->nmix_offset == MIX_MAX) {
			pr_err("replay: --mix-offset: more than %d", MIX_MAX);
			return EXIT_USAGE;
		}
		if (!eq || eq == arg || parse_duration_ns(eq + 1, &v) || v > MIX_OFFSET_MAX_NS) {
			pr_err("replay: --mix-offset: '%s': expected NAME=TIME, TIME up to 24h", arg);
			return EXIT_USAGE;
		}
		*eq = 0;
		o->mix_offset[o->nmix_offset++] = (struct replay_mix_offset){ .name = arg, .ns = v };
		return 0;
	case OPT_NULL_LAT:
		if (parse_duration_ns(arg, &o->null_latency_ns) == 0)
			return 0;
		pr_err("replay: --null-latency: '%s': not a duration", arg);
		return EXIT_USAGE;
	}
	return EXIT_USAGE;
}

/* 1 (after printing why) when `spec` is not a valid target spec. */
static int bad_spec(const char *spec)
{
	struct target_spec ts;
	struct bpt_error error;

	if (!spec)
		return 0;
	if (target_spec_parse(spec, &ts, &error)) {
		pr_err("replay: %s", error.msg);
		return 1;
	}
	target_spec_free(&ts);
	return 0;
}

/* RUN.bpt's name for repeat k: RUN.K.bpt (RUN.K without a suffix). */
static int repeat_path(const char *out, unsigned k, char *buf, size_t len)
{
	char tag[16];

	snprintf(tag, sizeof(tag), "%u", k);
	return run_path_tagged(out, tag, buf, len);
}

/* --repeat N: the same replay N times, each with its own run file. */
static int replay_repeats(struct replay_opts *o)
{
	const char *out = o->output;
	char path[4096];
	int rc = EXIT_OK;

	if (out && !strcmp(out, "-")) {
		pr_err("replay: --repeat writes one run file per repeat: give -o RUN.bpt, not -");
		return EXIT_USAGE;
	}
	for (unsigned k = 1; k <= o->repeats && rc == EXIT_OK; k++) {
		if (out) {
			if (repeat_path(out, k, path, sizeof(path))) {
				pr_err("replay: %s: name too long for --repeat", out);
				return EXIT_USAGE;
			}
			o->output = path;
		}
		o->repeat = k;
		if (!o->json)
			fprintf(stderr, "replay: repeat %u of %u%s%s\n", k, o->repeats,
				out ? ": " : "", out ? path : "");
		rc = replay_run(o);
	}
	o->output = out;
	return rc;
}

/* --list: the rows of the engine table (engine.c) and of the disk
 * presets (disk_presets.c); the bash completion reads --engine's names
 * from here. */
static void list_engines_and_disks(void)
{
	const char *name;

	printf("engines (--engine):\n");
	for (size_t i = 0; engine_at(i); i++)
		printf("  %-10s %s\n", engine_at(i)->name, engine_at(i)->summary);
	printf("disk models (hdd:MODEL:PATH):\n");
	for (size_t i = 0; (name = disk_preset_name(i)); i++)
		printf("  %-10s %s\n", name, disk_preset_summary(name));
}

int cmd_replay(int argc, char **argv)
{
	struct replay_opts o = { .timing = TIMING_ORIGINAL, .speed = 1, .engine = NULL,
				 .fit = FIT_REFUSE, .writes = WRITES_REPLAY };
	int c, rc, list = 0;
	struct opt_loop ol = { .cmd = "replay", .usage = usage };
	struct xform xf = { 0 };

	o.xf = &xf;

	while ((c = opt_next(&ol, argc, argv, ":t:o:h", long_opts)) != -1) {
		if (c == OPT_LIST) {
			list = 1;
			continue;
		}
		rc = xform_is_option(c) ? xform_cli_option(&xf, "replay", c, optarg)
					: parse_opt(c, optarg, &o);
		if (rc)
			return rc;
	}
	if (ol.ret >= 0 || (ol.ret = xform_cli_check(&xf, "replay")))
		return ol.ret;
	if (list) {
		if (argc != 2) {
			pr_err("replay: --list takes no trace and no other option");
			return EXIT_USAGE;
		}
		list_engines_and_disks();
		return 0;
	}
	if (optind >= argc || argc - optind > MIX_MAX) {
		pr_err("replay: %s; see 'blkpeak replay --help'",
		       optind >= argc ? "no trace given" : "more than 8 traces given for a mix");
		return EXIT_USAGE;
	}
	o.trace = argv[optind];
	if (argc - optind > 1) /* a mix */
		for (int i = optind; i < argc; i++)
			o.traces[o.ntraces++] = argv[i];
	if (o.nmix_offset && o.ntraces < 2) {
		pr_err("replay: --mix-offset: a mix's option: give two or more traces");
		return EXIT_USAGE;
	}
	if (!o.target && !o.nmap) {
		pr_err("replay: no target: give --target SPEC (or --map DEV=SPEC)");
		return EXIT_USAGE;
	}
	if (bad_spec(o.target))
		return EXIT_USAGE;
	for (unsigned i = 0; i < o.nmap; i++)
		if (bad_spec(o.map[i].spec))
			return EXIT_USAGE;
	if (o.no_idle && o.timing != TIMING_CAUSAL) {
		pr_err("replay: --no-idle only applies to --timing causal");
		return EXIT_USAGE;
	}
	if (o.conflicts == CONFLICT_ORDER && o.timing != TIMING_CAUSAL) {
		pr_err("replay: --conflicts order: needs --timing causal (where an I/O can wait for "
		       "another's completion)");
		return EXIT_USAGE;
	}
	if (o.poll && o.timing != TIMING_AFAP) {
		pr_err("replay: --poll only applies to --timing afap");
		return EXIT_USAGE;
	}
	if (o.writes != WRITES_REPLAY && o.allow_write) {
		pr_err("replay: --writes %s and --allow-write contradict each other",
		       o.writes == WRITES_SKIP ? "skip" : "as-reads");
		return EXIT_USAGE;
	}
	rc = o.repeats > 1 ? replay_repeats(&o) : replay_run(&o);
	xform_free(&xf);
	return rc;
}
