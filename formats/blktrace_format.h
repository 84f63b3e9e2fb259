/*
 * blktrace_format.h — the blktrace binary event, as Linux writes it:
 * `struct blk_io_trace` (version 0x07) and `struct blk_io_trace2`
 * (version 0x08, Linux 6.19), defined in the kernel's
 * include/uapi/linux/blktrace_api.h. blktrace(8) writes them per CPU
 * (relay files DEV.blktrace.CPU), the ftrace blk tracer with its `bin`
 * option writes version 0x07 records of every CPU, time-merged, to
 * trace_pipe. blkparse(1) reads both.
 *
 * One event is a fixed header followed by pdu_len bytes of payload:
 *
 *   v0x07 (48 bytes)            v0x08 (64 bytes)
 *   off size field              off size field
 *     0  4  magic                 0  4  magic  (0x65617400 | version)
 *     4  4  sequence              4  4  sequence (per CPU; 0 for notes)
 *     8  8  time (ns)             8  8  time (ns)
 *    16  8  sector (512 B)       16  8  sector (512 B)
 *    24  4  bytes                24  4  bytes
 *    28  4  action               28  4  pid
 *    32  4  pid                  32  8  action
 *    36  4  device               40  4  device
 *    40  4  cpu                  44  4  cpu
 *    44  2  error                48  2  error
 *    46  2  pdu_len              50  2  pdu_len
 *                                52 12  padding
 *
 * The action holds the action code in its low 16 bits and the category
 * bits (BT_TC_*) above them (<< 16): 16 categories in v0x07, up to 48 in
 * v0x08. When the action has BT_TA_CGROUP, the payload starts with the
 * 8-byte cgroup id (and pdu_len counts it). Notify records (category
 * BT_TC_NOTIFY) reuse the action codes 0..2 for other meanings, so the
 * category must be looked at before the code.
 *
 * Byte order: the writer's own. A reader knows it from the magic, read
 * either way (as blkparse does). The device is the kernel's dev_t:
 * major << 20 | minor. Time is the kernel's clock in ns (ktime_get() for
 * blktrace, the trace clock for ftrace), of any origin.
 */
#ifndef FORMATS_BLKTRACE_FORMAT_H
#define FORMATS_BLKTRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define BT_MAGIC 0x65617400u
#define BT_MAGIC_MASK 0xffffff00u
#define BT_VERSION_1 0x07 /* struct blk_io_trace */
#define BT_VERSION_2 0x08 /* struct blk_io_trace2 (Linux 6.19) */
#define BT_HDR_SIZE_1 48
#define BT_HDR_SIZE_2 64
#define BT_TC_SHIFT 16
#define BT_MINORBITS 20 /* dev_t as the kernel stores it */

/* Categories (enum blktrace_cat), as bits of (action >> BT_TC_SHIFT). */
enum bt_category {
	BT_TC_READ = 1u << 0,
	BT_TC_WRITE = 1u << 1,
	BT_TC_FLUSH = 1u << 2,    /* REQ_OP_FLUSH, and REQ_PREFLUSH */
	BT_TC_SYNC = 1u << 3,
	BT_TC_QUEUE = 1u << 4,
	BT_TC_REQUEUE = 1u << 5,
	BT_TC_ISSUE = 1u << 6,
	BT_TC_COMPLETE = 1u << 7,
	BT_TC_FS = 1u << 8,       /* a file system (not passthrough) request */
	BT_TC_PC = 1u << 9,       /* a passthrough (SCSI/NVMe command) request */
	BT_TC_NOTIFY = 1u << 10,  /* a note, not an I/O event */
	BT_TC_AHEAD = 1u << 11,   /* readahead */
	BT_TC_META = 1u << 12,
	BT_TC_DISCARD = 1u << 13,
	BT_TC_DRV_DATA = 1u << 14,
	BT_TC_FUA = 1u << 15,
	/* v0x08 only */
	BT_TC_ZONE_APPEND = 1u << 16,
	BT_TC_ZONE_RESET = 1u << 17,
	BT_TC_ZONE_RESET_ALL = 1u << 18,
	BT_TC_ZONE_FINISH = 1u << 19,
	BT_TC_ZONE_OPEN = 1u << 20,
	BT_TC_ZONE_CLOSE = 1u << 21,
	BT_TC_WRITE_ZEROES = 1u << 22,
};

/* Zone management requests: no data, no operation of the .bpt format. */
#define BT_TC_ZONE_MGMT (BT_TC_ZONE_RESET | BT_TC_ZONE_RESET_ALL | \
			 BT_TC_ZONE_FINISH | BT_TC_ZONE_OPEN | BT_TC_ZONE_CLOSE)

/* Action codes (enum blktrace_act), the low 16 bits without BT_TA_CGROUP;
 * blkparse's letter after each. */
enum bt_action {
	BT_TA_QUEUE = 1,       /* Q: a bio queued */
	BT_TA_BACKMERGE = 2,   /* M: a bio merged at the end of a request */
	BT_TA_FRONTMERGE = 3,  /* F: a bio merged at the front of a request */
	BT_TA_GETRQ = 4,       /* G: a request allocated for a bio */
	BT_TA_SLEEPRQ = 5,     /* S */
	BT_TA_REQUEUE = 6,     /* R: a request back from the driver */
	BT_TA_ISSUE = 7,       /* D: a request issued to the driver */
	BT_TA_COMPLETE = 8,    /* C: (part of) a request completed */
	BT_TA_PLUG = 9,        /* P */
	BT_TA_UNPLUG_IO = 10,  /* U */
	BT_TA_UNPLUG_TIMER = 11, /* T */
	BT_TA_INSERT = 12,     /* I: a request inserted into the scheduler */
	BT_TA_SPLIT = 13,      /* X: a bio split; payload: the new sector */
	BT_TA_BOUNCE = 14,     /* B */
	BT_TA_REMAP = 15,      /* A: a bio remapped (partition, dm, md) */
	BT_TA_ABORT = 16,
	BT_TA_DRV_DATA = 17,
	BT_TA_ZONE_PLUG = 18,
	BT_TA_ZONE_UNPLUG = 19,
};

#define BT_TA_CGROUP (1u << 8) /* the payload starts with the cgroup id */

/* Notify codes (enum blktrace_notify), with BT_TC_NOTIFY. */
enum bt_notify {
	BT_TN_PROCESS = 0,   /* pid -> comm (payload: the comm) */
	BT_TN_TIMESTAMP = 1, /* payload: u32 seconds, u32 ns of the wall clock */
	BT_TN_MESSAGE = 2,   /* payload: text */
};

/* The split payload (X) is a big-endian u64 sector; the remap payload (A)
 * is struct blk_io_trace_remap: be32 device_from, be32 device_to, be64
 * sector_from. */

/* One decoded event. pdu points into the reader's buffer and is valid
 * until the next event is read. */
struct bt_event {
	uint64_t time;     /* ns */
	uint64_t sector;
	uint64_t cat;      /* category bits (BT_TC_*) */
	uint64_t cgroup;   /* 0 when the record carries none */
	uint32_t sequence;
	uint32_t bytes;
	uint32_t pid;
	uint32_t dev;      /* major << 20 | minor */
	uint32_t cpu;
	uint16_t act;      /* action code, BT_TA_CGROUP removed */
	uint16_t error;    /* as recorded: a negative errno cut to 16 bits */
	uint16_t pdu_len;  /* payload after the cgroup id */
	const uint8_t *pdu;
};

/* How one file writes its records: learnt from the first magic. */
struct bt_layout {
	uint8_t big_endian;
	uint8_t version;   /* BT_VERSION_1 or BT_VERSION_2 */
	uint8_t hdr_size;  /* 48 or 64 */
};

/*
 * Learn the layout from a record's first 4 bytes. 0, or -EPROTO when the
 * magic is no blktrace magic, -EPROTONOSUPPORT for an unknown version.
 */
int bt_layout_detect(const uint8_t *p, struct bt_layout *lay);

/*
 * Decode the record at p (avail bytes there) with layout lay. Returns
 * the record's full length (header + payload) with *ev filled, 0 when
 * avail does not hold the whole record yet, -EPROTO when its magic is not
 * lay's (another byte order or version, or not a record: damage).
 */
long bt_decode(const uint8_t *p, size_t avail, const struct bt_layout *lay,
	       struct bt_event *ev);

/* Encode one v0x07 little-endian record header into out[48] (the caller
 * writes pdu_len payload bytes after it). */
void bt_encode_v1(uint8_t out[BT_HDR_SIZE_1], uint32_t sequence, uint64_t time,
		  uint64_t sector, uint32_t bytes, uint32_t action, uint32_t pid,
		  uint32_t dev, uint32_t cpu, uint16_t error, uint16_t pdu_len);

static inline uint32_t bt_dev_major(uint32_t dev) { return dev >> BT_MINORBITS; }
static inline uint32_t bt_dev_minor(uint32_t dev) { return dev & ((1u << BT_MINORBITS) - 1); }
static inline uint32_t bt_dev_make(uint32_t major, uint32_t minor)
{
	return major << BT_MINORBITS | (minor & ((1u << BT_MINORBITS) - 1));
}

#endif
