/*
 * bpf_loader.c — bring the BPF side of the capture up and down.
 *
 * The libbpf-tools order: open the skeleton, set its read-only data
 * (filters, the capture's own pid, tracepoint argument positions), size
 * its maps, turn off autoload for programs the running kernel cannot take,
 * load; then, as a separate step so the caller can take the trace's start
 * time in between, attach.
 *
 * Attach points are chosen per tracepoint from the kernel's BTF: a
 * `btf_trace_<name>` typedef says the tracepoint exists and where its
 * struct request * argument sits. tp_btf is used when the request is the
 * first argument of them all (Linux 5.11+); otherwise raw_tp programs for
 * all, each told its argument's index (the two flavours key requests
 * differently, so they are never mixed). block_io_start (6.5+) is preferred to block_rq_insert
 * for the creation time; with neither, requests are tracked from issue.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "capture.h"
#include "capture.skel.h"

enum tp_mode { TP_NONE, TP_BTF, TP_RAW };

struct tp_choice {
	enum tp_mode mode;
	int rq_idx; /* index of the struct request * argument */
};

/* Is type `id` a pointer to struct request (through typedefs/modifiers)? */
static int is_request_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	if (!t || !btf_is_ptr(t))
		return 0;
	t = btf__type_by_id(btf, t->type);
	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	return t && btf_is_struct(t) &&
	       !strcmp(btf__name_by_offset(btf, t->name_off), "request");
}

/* Where `tp`'s struct request * argument sits, from btf_trace_<tp>;
 * -ENOENT when the kernel has no such tracepoint (or no BTF for it). */
static int tp_request_arg(const struct btf *btf, const char *tp)
{
	const struct btf_type *t;
	const struct btf_param *p;
	char name[64];
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return -ENOENT;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_ptr(t))
		return -ENOENT;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -ENOENT;
	p = btf_params(t);
	/* parameter 0 is the tracepoint's void *data; arguments follow */
	for (int i = 1; i < btf_vlen(t); i++)
		if (is_request_ptr(btf, p[i].type))
			return i - 1;
	return -ENOENT;
}

static struct tp_choice tp_choose(const struct btf *btf, const char *tp,
				  int tp_btf_ok)
{
	int idx = tp_request_arg(btf, tp);

	if (idx < 0 || idx > 2)
		return (struct tp_choice){ TP_NONE, 0 };
	if (idx == 0 && tp_btf_ok)
		return (struct tp_choice){ TP_BTF, 0 };
	return (struct tp_choice){ TP_RAW, idx };
}

/* One tracepoint's two programs and the raw_tp argument slot. */
struct tp_progs {
	const char *tp;
	struct bpf_program *btf, *raw;
	volatile __u8 *raw_idx;
	struct tp_choice choice;
};

static void tp_apply(struct tp_progs *p, int use)
{
	if (!use)
		p->choice.mode = TP_NONE;
	bpf_program__set_autoload(p->btf, p->choice.mode == TP_BTF);
	bpf_program__set_autoload(p->raw, p->choice.mode == TP_RAW);
	*p->raw_idx = p->choice.rq_idx;
}

/* "tp_btf:block_io_start,block_rq_issue raw_tp:block_rq_merge" */
static void describe_attach(char *buf, size_t len, const struct tp_progs *tps,
			    int n)
{
	static const char *const prefix[] = { [TP_BTF] = "tp_btf:", [TP_RAW] = "raw_tp:" };
	size_t used = 0;

	buf[0] = '\0';
	for (int mode = TP_BTF; mode <= TP_RAW; mode++) {
		const char *sep = used ? " " : "";

		for (int i = 0; i < n; i++) {
			if (tps[i].choice.mode != (enum tp_mode)mode)
				continue;
			used += snprintf(buf + used, len - used, "%s%s%s", sep,
					 sep[0] != ',' ? prefix[mode] : "", tps[i].tp);
			if (used >= len)
				return;
			sep = ",";
		}
	}
}

/* The smallest power of two >= want, within [min, 1 GiB]. */
static uint64_t pow2_at_least(uint64_t want)
{
	uint64_t sz = 1;

	while (sz < want && sz < (1ull << 30))
		sz <<= 1;
	return sz;
}

/* Ring buffers are a power of two of pages. */
static uint64_t ringbuf_size(uint64_t want)
{
	uint64_t sz = pow2_at_least(want);

	return sz < 4096 ? 4096 : sz;
}

/*
 * How often the BPF side looks at the ring buffer's pending data: on
 * about 1 in (mask + 1) completions, mask a power of two minus 1 (at
 * most 63) such that the records of 8 * (mask + 1) completions stay
 * within `wakeup_bytes`: a late look then delays the wake up by a small
 * part of it. 0 (every completion) for tiny buffers.
 */
static uint32_t wakeup_check_mask(uint64_t wakeup_bytes)
{
	uint32_t n = 1;

	while (n < 64 && (uint64_t)n * 2 * 8 * sizeof(struct capture_event) <= wakeup_bytes)
		n <<= 1;
	return n - 1;
}

static void set_filters(struct capture_bpf *skel, const struct loader_opts *o)
{
	const struct capture_filters *f = o->filters;

	skel->rodata->filter_ndevs = f->ndevs;
	for (unsigned i = 0; i < f->ndevs; i++)
		skel->rodata->filter_devs[i] = f->devs[i];
	skel->rodata->filter_tgid = f->tgid;
	if (f->comm[0]) {
		skel->rodata->filter_comm_on = 1;
		memcpy((void *)skel->rodata->filter_comm, f->comm, CAPTURE_COMM_LEN);
	}
	skel->rodata->filter_cgroup_on = f->cgroup_fd >= 0;
	skel->rodata->own_tgid = o->own_tgid;
	skel->rodata->filter_cause = !o->submitted_only && !o->no_files;
}

static const char *load_reason(int err)
{
	switch (-err) {
	case EPERM:
		return "not permitted (needs CAP_BPF and CAP_PERFMON; a kernel "
		       "lockdown may forbid it)";
	case EACCES:
		return "the kernel's verifier refused them (-v shows why)";
	case ENOSYS:
		return "this kernel has no BPF system call";
	default:
		return NULL;
	}
}

/* The BTF types are read from: --btf FILE, else the kernel's. 0 or a
 * negative errno (with `error` set). */
static int open_btf(const struct loader_opts *o, struct btf **btf, struct bpt_error *error)
{
	int err;

	*btf = o->btf_path ? btf__parse(o->btf_path, NULL) : btf__load_vmlinux_btf();
	if (*btf)
		return 0;
	err = -errno;
	if (o->btf_path)
		return bpt_error_set(error, err, "--btf: '%s': %s", o->btf_path,
				     strerror(-err));
	return bpt_error_set(error, err,
			     "the kernel has no BTF (/sys/kernel/btf/vmlinux: %s); "
			     "it needs CONFIG_DEBUG_INFO_BTF, or give --btf FILE",
			     strerror(-err));
}

/* Pick tp_btf or raw tracepoint programs (one flavour for all) for the six
 * tracepoints and switch the others off. tp_btf attaches through the
 * kernel's own BTF: `use_btf` is 0 with --btf. -EOPNOTSUPP (with `error`
 * set) when the kernel lacks issue or complete. */
static int choose_tracepoints(struct capture_bpf *skel, const struct btf *btf, int use_btf,
			      struct tp_progs tps[6], struct bpt_error *error)
{
	int any_raw = 0;

	tps[0] = (struct tp_progs){ .tp = "block_io_start", .btf = skel->progs.io_start_btf,
		.raw = skel->progs.io_start_raw, .raw_idx = &skel->rodata->raw_idx_start };
	tps[1] = (struct tp_progs){ .tp = "block_rq_insert", .btf = skel->progs.rq_insert_btf,
		.raw = skel->progs.rq_insert_raw, .raw_idx = &skel->rodata->raw_idx_insert };
	tps[2] = (struct tp_progs){ .tp = "block_rq_issue", .btf = skel->progs.rq_issue_btf,
		.raw = skel->progs.rq_issue_raw, .raw_idx = &skel->rodata->raw_idx_issue };
	tps[3] = (struct tp_progs){ .tp = "block_rq_complete", .btf = skel->progs.rq_complete_btf,
		.raw = skel->progs.rq_complete_raw, .raw_idx = &skel->rodata->raw_idx_complete };
	tps[4] = (struct tp_progs){ .tp = "block_rq_merge", .btf = skel->progs.rq_merge_btf,
		.raw = skel->progs.rq_merge_raw, .raw_idx = &skel->rodata->raw_idx_merge };
	tps[5] = (struct tp_progs){ .tp = "block_rq_requeue", .btf = skel->progs.rq_requeue_btf,
		.raw = skel->progs.rq_requeue_raw, .raw_idx = &skel->rodata->raw_idx_requeue };
	for (int i = 0; i < 6; i++)
		tps[i].choice = tp_choose(btf, tps[i].tp, use_btf);
	/* one flavour for all: the two compute request keys differently */
	for (int i = 0; i < 6; i++)
		any_raw |= tps[i].choice.mode == TP_RAW;
	for (int i = 0; i < 6 && any_raw; i++)
		if (tps[i].choice.mode == TP_BTF)
			tps[i].choice.mode = TP_RAW;
	for (int i = 2; i <= 3; i++)
		if (tps[i].choice.mode == TP_NONE)
			return bpt_error_set(error, -EOPNOTSUPP,
					     "the kernel has no %s tracepoint", tps[i].tp);
	tp_apply(&tps[0], 1);
	tp_apply(&tps[1], tps[0].choice.mode == TP_NONE);
	tp_apply(&tps[2], 1);
	tp_apply(&tps[3], 1);
	tp_apply(&tps[4], 1);
	tp_apply(&tps[5], 1);
	skel->rodata->track_at_issue =
		tps[0].choice.mode == TP_NONE && tps[1].choice.mode == TP_NONE;
	return 0;
}

/* The ring buffer and the in-flight table, sized from the options. */
static int size_maps(struct capture_bpf_handle *h, const struct loader_opts *o,
		     struct bpt_error *error)
{
	struct capture_bpf *skel = h->skel;
	uint64_t slots;
	int err;

	h->ringbuf_bytes = ringbuf_size(o->ringbuf_bytes);
	skel->rodata->wakeup_bytes = h->ringbuf_bytes / 4;
	skel->rodata->wakeup_check_mask = wakeup_check_mask(h->ringbuf_bytes / 4);
	err = bpf_map__set_max_entries(skel->maps.events, h->ringbuf_bytes);
	slots = pow2_at_least(o->inflight_max ? o->inflight_max : 32768);
	skel->rodata->inflight_mask = slots - 1;
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.inflight, slots);
	if (err)
		return bpt_error_set(error, err, "sizing the BPF maps: %s", strerror(-err));
	return 0;
}

/* Load the programs into the kernel and hand them the --cgroup. */
static int load_programs(struct capture_bpf *skel, const struct loader_opts *o,
			 struct bpt_error *error)
{
	const char *reason;
	int err;

	err = capture_bpf__load(skel);
	if (err) {
		reason = load_reason(err);
		return bpt_error_set(error, err, "loading the BPF programs: %s%s",
				     reason ? reason : strerror(-err),
				     reason ? "" : " (-v shows libbpf's log)");
	}
	if (o->filters->cgroup_fd >= 0) {
		__u32 zero = 0, fd = o->filters->cgroup_fd;

		if (bpf_map_update_elem(bpf_map__fd(skel->maps.cgroup_filter),
					&zero, &fd, BPF_ANY)) {
			err = -errno;
			return bpt_error_set(error, err, "--cgroup: %s", strerror(-err));
		}
	}
	return 0;
}

int loader_load(struct capture_bpf_handle *h, const struct loader_opts *o,
		struct bpt_error *error)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .btf_custom_path = o->btf_path);
	int kernel_btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	struct tp_progs tps[6];
	struct capture_bpf *skel;
	struct btf *btf;
	int err;

	memset(h, 0, sizeof(*h));
	err = open_btf(o, &btf, error);
	if (err)
		return err;
	req_bits_from_btf(&h->bits, btf);

	skel = capture_bpf__open_opts(&open_opts);
	if (!skel) {
		err = -errno;
		btf__free(btf);
		return bpt_error_set(error, err, "opening the BPF object: %s", strerror(-err));
	}
	h->skel = skel;
	err = choose_tracepoints(skel, btf, kernel_btf && !o->btf_path && !o->force_raw,
				 tps, error);
	files_set_rodata(skel, btf, !o->no_files);
	/* the paths and dirtiers of written files, the tasks in fsync:
	 * tp_btf programs, so the kernel's own BTF, with the tracepoint */
	{
		struct { struct bpf_program *p; const char *tp; } opt[] = {
			{ skel->progs.dirty_folio, "btf_trace_writeback_dirty_folio" },
			{ skel->progs.sync_enter, "btf_trace_ext4_sync_file_enter" },
			{ skel->progs.sync_exit, "btf_trace_ext4_sync_file_exit" },
		};

		for (size_t i = 0; i < sizeof(opt) / sizeof(opt[0]); i++)
			bpf_program__set_autoload(opt[i].p,
				!o->no_files && kernel_btf && !o->btf_path &&
				btf__find_by_name_kind(btf, opt[i].tp, BTF_KIND_TYPEDEF) > 0);
	}
	btf__free(btf);
	if (err)
		goto fail;
	set_filters(skel, o);
	err = size_maps(h, o, error);
	if (!err)
		err = load_programs(skel, o, error);
	if (err)
		goto fail;
	describe_attach(h->attach, sizeof(h->attach), tps, 6);
	return 0;
fail:
	loader_stop(h);
	return err < 0 ? err : -EINVAL;
}

/*
 * Attach the loaded programs, the end of a request's life first: a request
 * is only tracked once the programs that will see it issued and completed
 * are live, so none is left waiting for a completion that came before.
 */
int loader_attach(struct capture_bpf_handle *h, struct bpt_error *error)
{
	struct capture_bpf *sk = h->skel;
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} order[] = {
		{ sk->progs.rq_complete_btf, &sk->links.rq_complete_btf },
		{ sk->progs.rq_complete_raw, &sk->links.rq_complete_raw },
		{ sk->progs.rq_merge_btf, &sk->links.rq_merge_btf },
		{ sk->progs.rq_merge_raw, &sk->links.rq_merge_raw },
		{ sk->progs.rq_requeue_btf, &sk->links.rq_requeue_btf },
		{ sk->progs.rq_requeue_raw, &sk->links.rq_requeue_raw },
		{ sk->progs.rq_issue_btf, &sk->links.rq_issue_btf },
		{ sk->progs.rq_issue_raw, &sk->links.rq_issue_raw },
		{ sk->progs.rq_insert_btf, &sk->links.rq_insert_btf },
		{ sk->progs.rq_insert_raw, &sk->links.rq_insert_raw },
		{ sk->progs.io_start_btf, &sk->links.io_start_btf },
		{ sk->progs.io_start_raw, &sk->links.io_start_raw },
	};

	/* the paths of written files: without them the trace still names
	 * each I/O's inode, so a kernel that refuses the hook is no error */
	if (bpf_program__autoload(sk->progs.dirty_folio)) {
		sk->links.dirty_folio = bpf_program__attach(sk->progs.dirty_folio);
		h->paths_on = sk->links.dirty_folio != NULL;
		h->paths_error = h->paths_on ? 0 : -errno;
	}
	/* without them a journal commit is not credited to its fsync */
	if (bpf_program__autoload(sk->progs.sync_exit))
		sk->links.sync_exit = bpf_program__attach(sk->progs.sync_exit);
	if (sk->links.sync_exit && bpf_program__autoload(sk->progs.sync_enter))
		sk->links.sync_enter = bpf_program__attach(sk->progs.sync_enter);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *reason;
		int err;

		if (!bpf_program__autoload(order[i].prog))
			continue;
		*order[i].link = bpf_program__attach(order[i].prog);
		if (!*order[i].link) {
			err = -errno;
			reason = load_reason(err);
			bpt_error_set(error, err, "attaching %s: %s",
				 bpf_program__name(order[i].prog),
				 reason ? reason : strerror(-err));
			return err;
		}
	}
	return 0;
}

void loader_stop(struct capture_bpf_handle *h)
{
	capture_bpf__destroy(h->skel);
	h->skel = NULL;
}

int loader_ringbuf_fd(const struct capture_bpf_handle *h)
{
	return bpf_map__fd(h->skel->maps.events);
}

int loader_path_fd(const struct capture_bpf_handle *h)
{
	return h->paths_on ? bpf_map__fd(h->skel->maps.path_events) : -1;
}

uint64_t loader_missed_runs(const struct capture_bpf_handle *h)
{
	/* the merge program's misses lose nothing (an entry stays behind),
	 * nor do the completion program's: the entry stays too, and its
	 * request is recorded as a completion not seen */
	struct bpf_program *progs[] = {
		h->skel->progs.io_start_btf, h->skel->progs.io_start_raw,
		h->skel->progs.rq_insert_btf, h->skel->progs.rq_insert_raw,
		h->skel->progs.rq_issue_btf, h->skel->progs.rq_issue_raw,
	};
	uint64_t sum = 0;

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(progs[i]);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

/* An issued request seen in the in-flight table: where, and who. */
struct pending {
	uint32_t idx;
	uint64_t rq, issue_ns;
};

/* The in-flight table, mapped read-only; *len gets the mapping's size. */
static const volatile struct capture_inflight *map_inflight(const struct capture_bpf_handle *h,
							    size_t *n, size_t *len)
{
	const struct bpf_map *m = h->skel->maps.inflight;
	long page = sysconf(_SC_PAGESIZE);
	void *t;

	*n = bpf_map__max_entries(m);
	*len = (*n * sizeof(struct capture_inflight) + page - 1) / page * page;
	t = mmap(NULL, *len, PROT_READ, MAP_SHARED, bpf_map__fd(m), 0);
	return t == MAP_FAILED ? NULL : t;
}

int loader_wait_inflight(const struct capture_bpf_handle *h, unsigned wait_ms,
			 void (*tick)(void *ctx), void *ctx)
{
	const volatile struct capture_inflight *t;
	size_t n, np = 0, len;
	struct pending *p;
	int err = 0;

	t = map_inflight(h, &n, &len);
	if (!t)
		return -errno;
	p = malloc(n * sizeof(*p));
	if (!p) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (t[i].rq && t[i].issue_ns)
			p[np++] = (struct pending){ i, t[i].rq, t[i].issue_ns };
	for (unsigned waited = 0; np; waited += 10) {
		size_t keep = 0;

		for (size_t i = 0; i < np; i++)
			if (t[p[i].idx].rq == p[i].rq &&
			    t[p[i].idx].issue_ns == p[i].issue_ns)
				p[keep++] = p[i];
		np = keep;
		if (!np || waited >= wait_ms)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000000 }, NULL);
		tick(ctx);
	}
	free(p);
out:
	munmap((void *)t, len);
	return err;
}

void loader_detach(struct capture_bpf_handle *h)
{
	if (h->skel)
		capture_bpf__detach(h->skel);
}

int loader_each_pending(const struct capture_bpf_handle *h, uint64_t end_ns,
			int (*fn)(void *ctx, const struct capture_event *ev),
			void *ctx)
{
	const volatile struct capture_inflight *t;
	size_t n, len;
	int rc = 0;

	t = map_inflight(h, &n, &len);
	if (!t)
		return -errno;
	for (size_t i = 0; i < n && !rc; i++) {
		const volatile struct capture_inflight *s = &t[i];
		struct capture_event ev = { 0 };

		if (!s->rq || !s->issue_ns)
			continue; /* free, or never issued: not an I/O */
		ev.queue_ns = s->queue_ns;
		ev.issue_ns = s->issue_ns;
		ev.complete_ns = end_ns > s->issue_ns ? end_ns : s->issue_ns;
		ev.sector = s->sector;
		ev.cgroup_id = s->cgroup_id;
		ev.bytes = s->bytes;
		ev.pid = s->pid;
		ev.dev = s->dev;
		ev.cmd_flags = s->cmd_flags;
		for (int k = 0; k < CAPTURE_COMM_LEN; k++)
			ev.comm[k] = s->comm[k];
		ev.completion = CAPTURE_COMPLETION_PENDING;
		ev.file_kind = s->file_kind;
		ev.inode = s->inode;
		ev.file_off = s->file_off;
		ev.file_dev = s->file_dev;
		ev.file_bytes = s->file_bytes;
		ev.inode2 = s->inode2;
		ev.file2_off = s->file2_off;
		ev.file2_dev = s->file2_dev;
		ev.file2_bytes = s->file2_bytes;
		ev.cause_kind = s->cause_kind;
		ev.kthread = s->kthread;
		/* the cause fields hold this request's values only with a
		 * cause_kind, the second file's with file2_bytes (the BPF
		 * side's fill_tail reads them the same way) */
		if (s->cause_kind != CAPTURE_CAUSE_NONE) {
			ev.cause_pid = s->cause_pid;
			ev.cause_cgroup = s->cause_cgroup;
			for (int k = 0; k < CAPTURE_COMM_LEN; k++)
				ev.cause_comm[k] = s->cause_comm[k];
		}
		if (s->file2_bytes) {
			ev.cause2_pid = s->cause2_pid;
			ev.cause2_cgroup = s->cause2_cgroup;
			for (int k = 0; k < CAPTURE_COMM_LEN; k++)
				ev.cause2_comm[k] = s->cause2_comm[k];
		}
		rc = fn(ctx, &ev);
	}
	munmap((void *)t, len);
	return rc;
}

const volatile struct capture_counters *loader_counters(const struct capture_bpf_handle *h)
{
	return &h->skel->bss->counters;
}
