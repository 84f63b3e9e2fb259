/*
 * reqbits.c — a request's operation, flags and status as the running
 * kernel encodes them, mapped to the trace's enum bpt_op / bpt_flag and
 * to errno values.
 *
 * The BPF side hands over the raw cmd_flags word; the bit positions are
 * read here, once, from the kernel's BTF (enum req_op, enum req_flag_bits),
 * because the flag bits move between kernel versions. Doing the mapping in
 * user space keeps the BPF programs short and makes it testable.
 */
#include <errno.h>
#include <string.h>

#include <bpf/btf.h>

#include "capture.h"

void req_bits_default(struct req_bits *b)
{
	/* include/linux/blk_types.h, Linux 6.1 .. 6.18 */
	*b = (struct req_bits){
		.op_mask = (1u << 8) - 1, /* REQ_OP_BITS */
		.op_read = 0, .op_write = 1, .op_flush = 2, .op_discard = 3,
		.op_secure_erase = 5, .op_zone_append = 7, .op_write_zeroes = 9,
		.f_sync = 1u << 11, .f_meta = 1u << 12, .f_fua = 1u << 17,
		.f_preflush = 1u << 18, .f_rahead = 1u << 19,
	};
}

/* The value of enumerator `name` in `e` (an enum type), or -1. */
static long long enum_value(const struct btf *btf, const struct btf_type *e,
			    const char *name)
{
	const struct btf_enum *v = btf_enum(e);

	if (!btf_is_enum(e))
		return -1;
	for (int i = 0; i < btf_vlen(e); i++, v++)
		if (!strcmp(btf__name_by_offset(btf, v->name_off), name))
			return v->val;
	return -1;
}

static const struct btf_type *find_enum(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_ENUM);

	return id > 0 ? btf__type_by_id(btf, id) : NULL;
}

static void set_op(int32_t *op, const struct btf *btf, const struct btf_type *e,
		   const char *name)
{
	long long v = e ? enum_value(btf, e, name) : -1;

	if (e)
		*op = v; /* -1 when the running kernel has no such op */
}

static void set_flag(uint32_t *mask, const struct btf *btf,
		     const struct btf_type *e, const char *name)
{
	long long v = e ? enum_value(btf, e, name) : -1;

	if (v >= 0 && v < 32)
		*mask = 1u << v;
}

void req_bits_from_btf(struct req_bits *b, const struct btf *btf)
{
	const struct btf_type *ops, *flags;
	long long first_flag;

	req_bits_default(b);
	if (!btf)
		return;
	/* enum req_opf before 6.0, enum req_op since */
	ops = find_enum(btf, "req_op");
	if (!ops)
		ops = find_enum(btf, "req_opf");
	set_op(&b->op_read, btf, ops, "REQ_OP_READ");
	set_op(&b->op_write, btf, ops, "REQ_OP_WRITE");
	set_op(&b->op_flush, btf, ops, "REQ_OP_FLUSH");
	set_op(&b->op_discard, btf, ops, "REQ_OP_DISCARD");
	set_op(&b->op_secure_erase, btf, ops, "REQ_OP_SECURE_ERASE");
	set_op(&b->op_write_zeroes, btf, ops, "REQ_OP_WRITE_ZEROES");
	set_op(&b->op_zone_append, btf, ops, "REQ_OP_ZONE_APPEND");

	flags = find_enum(btf, "req_flag_bits");
	/* the first flag bit follows the op field: REQ_OP_BITS */
	first_flag = flags ? enum_value(btf, flags, "__REQ_FAILFAST_DEV") : -1;
	if (first_flag > 0 && first_flag < 32)
		b->op_mask = (1u << first_flag) - 1;
	set_flag(&b->f_sync, btf, flags, "__REQ_SYNC");
	set_flag(&b->f_meta, btf, flags, "__REQ_META");
	set_flag(&b->f_fua, btf, flags, "__REQ_FUA");
	set_flag(&b->f_preflush, btf, flags, "__REQ_PREFLUSH");
	set_flag(&b->f_rahead, btf, flags, "__REQ_RAHEAD");
}

int req_map(const struct req_bits *b, uint32_t cmd_flags, uint8_t *op,
	    uint8_t *flags)
{
	int32_t kop = cmd_flags & b->op_mask;
	uint8_t f = 0;

	if (kop == b->op_read)
		*op = BPT_OP_READ;
	else if (kop == b->op_write || kop == b->op_zone_append)
		*op = BPT_OP_WRITE;
	else if (kop == b->op_flush)
		*op = BPT_OP_FLUSH;
	else if (kop == b->op_discard || kop == b->op_secure_erase)
		*op = BPT_OP_DISCARD;
	else if (kop == b->op_write_zeroes)
		*op = BPT_OP_WRITE_ZEROES;
	else
		return -EOPNOTSUPP;
	if (cmd_flags & b->f_sync)
		f |= BPT_F_SYNC;
	if (cmd_flags & b->f_fua)
		f |= BPT_F_FUA;
	if (cmd_flags & b->f_preflush)
		f |= BPT_F_PREFLUSH;
	if (cmd_flags & b->f_meta)
		f |= BPT_F_META;
	if (cmd_flags & b->f_rahead)
		f |= BPT_F_READAHEAD;
	*flags = f;
	return 0;
}

int32_t req_status_errno(uint8_t status)
{
	/* blk_errors[] in block/blk-core.c (Linux 6.x); BLK_STS_* values are
	 * #defines, so they are not in BTF. */
	static const int32_t map[] = {
		[0] = 0,
		[1] = -EOPNOTSUPP,  /* NOTSUPP */
		[2] = -ETIMEDOUT,   /* TIMEOUT */
		[3] = -ENOSPC,      /* NOSPC */
		[4] = -ENOLINK,     /* TRANSPORT */
		[5] = -EREMOTEIO,   /* TARGET */
		[6] = -EBADE,       /* RESV_CONFLICT (NEXUS before 6.5) */
		[7] = -ENODATA,     /* MEDIUM */
		[8] = -EILSEQ,      /* PROTECTION */
		[9] = -ENOMEM,      /* RESOURCE */
		[10] = -EIO,        /* IOERR */
		[11] = -EREMCHG,    /* DM_REQUEUE */
		[12] = -EAGAIN,     /* AGAIN */
		[13] = -EBUSY,      /* DEV_RESOURCE */
		[14] = -ETOOMANYREFS, /* ZONE_OPEN_RESOURCE */
		[15] = -EOVERFLOW,  /* ZONE_ACTIVE_RESOURCE */
		[16] = -ENODEV,     /* OFFLINE */
		[17] = -ETIME,      /* DURATION_LIMIT */
		[18] = -EIO,        /* unused */
		[19] = -EINVAL,     /* INVAL */
	};

	if (status < sizeof(map) / sizeof(map[0]))
		return map[status];
	return -EIO; /* what the kernel answers for a status it does not know */
}
