/* Unit tests of capture/reqbits.c: REQ_OP_* / REQ_* to bpt op and flags,
 * bit positions read from a (hand-built) kernel BTF, blk_status_t to
 * errno. No root needed. */
#include <criterion/criterion.h>
#include <errno.h>

#include <bpf/btf.h>

#include "../../capture/capture.h"

/* Linux 6.x encodings, as in include/linux/blk_types.h */
#define OP_READ 0
#define OP_WRITE 1
#define OP_FLUSH 2
#define OP_DISCARD 3
#define OP_SECURE_ERASE 5
#define OP_ZONE_APPEND 7
#define OP_WRITE_ZEROES 9
#define OP_ZONE_RESET 17
#define OP_DRV_IN 34
#define F_SYNC (1u << 11)
#define F_META (1u << 12)
#define F_FUA (1u << 17)
#define F_PREFLUSH (1u << 18)
#define F_RAHEAD (1u << 19)
#define F_NOMERGE (1u << 14)

static void check(const struct req_bits *b, uint32_t cmd, int want_op, unsigned want_flags)
{
	uint8_t op = 0xff, flags = 0xff;

	cr_assert_eq(req_map(b, cmd, &op, &flags), 0, "cmd_flags %#x", cmd);
	cr_assert_eq(op, want_op, "cmd_flags %#x: op %u, want %d", cmd, op, want_op);
	cr_assert_eq(flags, want_flags, "cmd_flags %#x: flags %#x, want %#x", cmd,
		     flags, want_flags);
}

Test(capture_reqbits, ops_linux6)
{
	struct req_bits b;

	req_bits_default(&b);
	check(&b, OP_READ, BPT_OP_READ, 0);
	check(&b, OP_WRITE, BPT_OP_WRITE, 0);
	check(&b, OP_FLUSH | F_PREFLUSH, BPT_OP_FLUSH, BPT_F_PREFLUSH);
	check(&b, OP_DISCARD, BPT_OP_DISCARD, 0);
	check(&b, OP_SECURE_ERASE, BPT_OP_DISCARD, 0);
	check(&b, OP_WRITE_ZEROES, BPT_OP_WRITE_ZEROES, 0);
	check(&b, OP_ZONE_APPEND, BPT_OP_WRITE, 0);
}

Test(capture_reqbits, flags_linux6)
{
	struct req_bits b;

	req_bits_default(&b);
	check(&b, OP_WRITE | F_SYNC | F_FUA, BPT_OP_WRITE, BPT_F_SYNC | BPT_F_FUA);
	check(&b, OP_READ | F_RAHEAD | F_META, BPT_OP_READ, BPT_F_READAHEAD | BPT_F_META);
	check(&b, OP_WRITE | F_PREFLUSH | F_SYNC, BPT_OP_WRITE, BPT_F_PREFLUSH | BPT_F_SYNC);
	/* flags a trace does not keep are dropped, not misread */
	check(&b, OP_READ | F_NOMERGE, BPT_OP_READ, 0);
}

Test(capture_reqbits, unsupported_ops)
{
	struct req_bits b;
	uint8_t op, flags;

	req_bits_default(&b);
	cr_assert_eq(req_map(&b, OP_DRV_IN, &op, &flags), -EOPNOTSUPP);
	cr_assert_eq(req_map(&b, OP_ZONE_RESET, &op, &flags), -EOPNOTSUPP);
}

/* A BTF with the enums of a made-up kernel whose bits differ from 6.x. */
static struct btf *fake_kernel_btf(void)
{
	struct btf *btf = btf__new_empty();

	cr_assert_not_null(btf);
	cr_assert_gt(btf__add_enum(btf, "req_opf", 4), 0);
	btf__add_enum_value(btf, "REQ_OP_READ", 0);
	btf__add_enum_value(btf, "REQ_OP_WRITE", 1);
	btf__add_enum_value(btf, "REQ_OP_FLUSH", 2);
	btf__add_enum_value(btf, "REQ_OP_DISCARD", 3);
	btf__add_enum_value(btf, "REQ_OP_WRITE_ZEROES", 9);
	cr_assert_gt(btf__add_enum(btf, "req_flag_bits", 4), 0);
	btf__add_enum_value(btf, "__REQ_FAILFAST_DEV", 6); /* 6 op bits */
	btf__add_enum_value(btf, "__REQ_SYNC", 9);
	btf__add_enum_value(btf, "__REQ_META", 10);
	btf__add_enum_value(btf, "__REQ_FUA", 15);
	btf__add_enum_value(btf, "__REQ_PREFLUSH", 16);
	btf__add_enum_value(btf, "__REQ_RAHEAD", 17);
	return btf;
}

Test(capture_reqbits, bits_from_btf)
{
	struct btf *btf = fake_kernel_btf();
	struct req_bits b;
	uint8_t op, flags;

	req_bits_from_btf(&b, btf);
	btf__free(btf);
	cr_assert_eq(b.op_mask, 0x3f);
	cr_assert_eq(b.op_secure_erase, -1, "an op the kernel lacks");
	check(&b, 1 | (1u << 9) | (1u << 15), BPT_OP_WRITE, BPT_F_SYNC | BPT_F_FUA);
	check(&b, 2 | (1u << 16), BPT_OP_FLUSH, BPT_F_PREFLUSH);
	check(&b, 0 | (1u << 17) | (1u << 10), BPT_OP_READ, BPT_F_READAHEAD | BPT_F_META);
	/* the 6.x sync bit means nothing on this kernel */
	check(&b, 0 | (1u << 11), BPT_OP_READ, 0);
	cr_assert_eq(req_map(&b, 5, &op, &flags), -EOPNOTSUPP);
}

Test(capture_reqbits, running_kernel_btf)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct req_bits b, d;

	if (!btf)
		cr_skip_test("no /sys/kernel/btf/vmlinux");
	req_bits_from_btf(&b, btf);
	btf__free(btf);
	req_bits_default(&d);
	/* every kernel since 4.10 agrees on these */
	cr_assert_eq(b.op_read, 0);
	cr_assert_eq(b.op_write, 1);
	cr_assert_eq(b.op_flush, 2);
	cr_assert_eq(b.op_discard, 3);
	cr_assert_neq(b.f_sync, 0);
	cr_assert_neq(b.f_preflush, b.f_fua);
}

Test(capture_reqbits, status_to_errno)
{
	cr_assert_eq(req_status_errno(0), 0);
	cr_assert_eq(req_status_errno(1), -EOPNOTSUPP);
	cr_assert_eq(req_status_errno(2), -ETIMEDOUT);
	cr_assert_eq(req_status_errno(3), -ENOSPC);
	cr_assert_eq(req_status_errno(7), -ENODATA);
	cr_assert_eq(req_status_errno(10), -EIO);
	cr_assert_eq(req_status_errno(12), -EAGAIN);
	cr_assert_eq(req_status_errno(16), -ENODEV);
	cr_assert_eq(req_status_errno(200), -EIO, "unknown status");
}
