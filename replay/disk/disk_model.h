/*
 * disk_model.h — the service-time model of an emulated disk
 * (schemas/disk-model.md has the equations and the sources).
 *
 * The model is a pure function of its state, the requests handed to it
 * and their arrival times: no clock, no I/O. Times are nanoseconds on any
 * monotonic time base (the replay uses CLOCK_MONOTONIC, so the platter's
 * angle follows the real clock: angle = (t mod rotation period)).
 *
 * Use: disk_model_submit() each request with its arrival time, in
 * non-decreasing time order; disk_model_advance(t) moves the disk to time
 * t (services that finish by t complete, the next request is chosen at
 * each finish); disk_model_pop() takes completed requests with their
 * finish times; disk_model_next_finish() says when the request in service
 * will finish (the next event), so a caller can sleep until then.
 *
 * Kinds:
 *   hdd      one head: command overhead, seek (sqrt curve for short seeks,
 *            linear for long), rotational delay from the angle at which
 *            the head arrives, media transfer at the zone's rate (ZCAV);
 *            FIFO or shortest-access-time-first among the first `queue`
 *            waiting commands; a read-ahead segment; a write-back cache
 *            that is on (a write ends when its data is in the cache, which
 *            drains at the media rate while the head is free; a write that
 *            does not fit waits for room; a flush waits for the drain; FUA
 *            goes to the platter) or off (a write ends on the platter).
 *   ssd      `channels` parallel channels, fixed latency per operation
 *            plus the transfer at the channel's rate; no seek, no angle.
 *   instant  every request finishes when it arrives (zero cost).
 */
#ifndef BLKPEAK_DISK_MODEL_H
#define BLKPEAK_DISK_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "bpt.h"

#define DM_MAX_ZONES 64
#define DM_NEVER UINT64_MAX

enum dm_kind { DM_HDD, DM_SSD, DM_INSTANT };

/* Everything that describes a drive; a preset fills it, key=value items
 * override it (disk_params_parse). Rates are MB/s (10^6 bytes/s). */
struct disk_params {
	char name[48];          /* preset name, "custom" when changed */
	enum dm_kind kind;
	/* hdd */
	double rpm;
	double seek_t2t_ns, seek_avg_ns, seek_full_ns;
	double rate_outer, rate_inner; /* sustained media rate, MB/s */
	unsigned nzones;        /* zones of the table (outer first) */
	double zone_rate[DM_MAX_ZONES]; /* MB/s; filled from outer/inner when
					 * not given as zones=R/R/... */
	int zones_given;        /* zone_rate came from zones= */
	unsigned queue;         /* 1: FIFO; N > 1: SATF over N commands */
	uint64_t cache_bytes;   /* read-ahead segment; 0: no read-ahead */
	int wcache;             /* write-back cache on */
	double bus_rate;        /* interface, MB/s */
	double overhead_ns;     /* command overhead */
	/* ssd */
	unsigned channels;
	double read_ns, write_ns, flush_ns; /* per command */
	double channel_rate;    /* MB/s per channel */
};

/* One request as the model sees it. */
struct dm_req {
	uint64_t id;            /* the caller's */
	uint64_t offset, len;   /* bytes on the disk */
	uint8_t op;             /* enum bpt_op */
	uint8_t flags;          /* enum bpt_flag (BPT_F_FUA) */
	uint64_t arrival;       /* ns */
	uint64_t start, finish; /* set by the model */
};

struct dm_zone {
	uint64_t first_byte;    /* where the zone starts */
	double track_bytes;     /* bytes per track (rate x rotation) */
	double first_cyl;       /* cylinder where the zone starts */
	double rate;            /* bytes per ns */
};

/* Requests in a growable ring-less array (the queue is short). */
struct dm_list {
	struct dm_req *v;
	size_t n, cap;
};

struct disk_model {
	struct disk_params p;
	uint64_t capacity;      /* bytes: the member's size */
	/* derived geometry */
	double rot_ns;          /* one revolution */
	unsigned nzones;
	struct dm_zone zone[DM_MAX_ZONES];
	double ncyl;            /* cylinders over the whole disk */
	double seek_knee, seek_tk; /* curve: sqrt up to knee, linear after */
	/* state */
	double head_cyl;        /* cylinder under the head */
	uint64_t now;           /* the disk has been advanced to this time */
	int busy;               /* hdd: a request in service */
	struct dm_req cur;      /* hdd: the request in service */
	struct dm_list queue;   /* hdd: waiting; ssd: in flight */
	struct dm_list done;    /* finished, not yet popped */
	size_t done_head;
	double *chan_free;      /* ssd: when each channel is free */
	/* read-ahead stream: the head streams from ra_pos at ra_t on */
	int ra_on;
	uint64_t ra_lo;         /* lowest byte still in the segment */
	uint64_t ra_pos;        /* byte the stream had reached at ra_t */
	uint64_t ra_t;
	uint64_t ra_used;       /* bytes up to here were handed to the host */
	/* write-back cache: dirty bytes, drained at the media rate whenever
	 * the head is not busy with a command */
	double dirty;
	uint64_t dirty_t;       /* when dirty was last brought up to date */
	uint64_t media_until;   /* the head is busy with a command until then */
	double drain_rate;      /* bytes per ns where the dirty data goes */
};

/* Defaults of a preset (`name`), or -ENOENT. */
int disk_params_preset(const char *name, struct disk_params *p);
/* The i-th preset's name (0, 1, ...; NULL past the last: disk_presets.c's
 * one table), and one line on a preset (NULL: not a preset). */
const char *disk_preset_name(size_t i);
const char *disk_preset_summary(const char *name);

/*
 * Parse a model spec: items separated by ',', each a preset name, a
 * key=value pair or file=PATH (lines of key=value, '#' comments); later
 * items override earlier ones. On failure returns -EINVAL (or -errno for
 * a file) with the reason in why[len].
 */
int disk_params_parse(const char *spec, struct disk_params *p, struct bpt_error *error);
/* Check ranges and relations (t2t <= avg <= full, ...); -EINVAL + why. */
int disk_params_check(const struct disk_params *p, struct bpt_error *error);
/* One line: "7200 rpm, seek 2.0/8.9/21.0 ms, 50-30 MB/s, FIFO, ..." */
void disk_params_describe(const struct disk_params *p, char *buf, size_t len);

/* Set up a model of a disk of `capacity` bytes at time 0; -EINVAL on
 * bad parameters, -ENOMEM. */
int disk_model_init(struct disk_model *m, const struct disk_params *p, uint64_t capacity);
void disk_model_free(struct disk_model *m);

/* A request arrives at r->arrival (>= the last time given); the model is
 * advanced to that time first. 0 or -ENOMEM. */
int disk_model_submit(struct disk_model *m, const struct dm_req *r);
/* Advance to time t: requests finishing by t move to the done list. */
int disk_model_advance(struct disk_model *m, uint64_t t);
/* When the next request will finish (DM_NEVER when idle). */
uint64_t disk_model_next_finish(const struct disk_model *m);
/* Take the oldest finished request; 0 when there is none. */
int disk_model_pop(struct disk_model *m, struct dm_req *out);

/* The curve and geometry, for tests and `describe`. */
double disk_model_seek_ns(const struct disk_model *m, double cylinders);
double disk_model_zone_rate(const struct disk_model *m, uint64_t byte); /* MB/s */
double disk_model_cylinder(const struct disk_model *m, uint64_t byte);

#endif
