/*
 * fuzz_bpt.c — libFuzzer target for the trace reader: any byte string
 * given to bpt_reader_open_mem must give either an error or records that
 * pass the reader's own contract (device, op, flags and string ids in
 * range), never a crash, a hang or a leak. Every reader entry point is
 * exercised: next, stats, losses, strings, seek_time, rewind, digest,
 * verify, and read_fields, which must return as many records as next and
 * fail where next fails. Run with `make fuzz FUZZ_SECONDS=N`; seeds in corpus/bpt/.
 */
#include <stdint.h>
#include <stdlib.h>

#include "bpt.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bpt_reader *r;
	struct bpt_error e;
	struct bpt_record rec;
	struct bpt_stats st;
	const struct bpt_loss *l;
	uint64_t d, n = 0;
	int rc;

	if (bpt_reader_open_mem(&r, data, size, "fuzz.bpt", &e))
		return 0;
	while ((rc = bpt_reader_next(r, &rec, &e)) == 1 && n++ < 1000000)
		fuzz_check_record(r, &rec);
	bpt_reader_stats(r, &st);
	bpt_reader_losses(r, &l);
	if (st.first_issue_ns <= st.last_issue_ns) {
		uint64_t t = st.first_issue_ns + (st.last_issue_ns - st.first_issue_ns) / 2;

		if (bpt_reader_seek_time(r, t, &e) == 0)
			for (int i = 0; i < 100 && bpt_reader_next(r, &rec, &e) == 1; i++)
				fuzz_check_record(r, &rec);
	}
	bpt_reader_digest(r, &d, &e);
	bpt_reader_verify(r, &e);
	if (bpt_reader_rewind(r, &e) == 0 && n < 1000000) {
		static uint64_t buf[BPT_FIELD__COUNT][257];
		struct bpt_field_out out[BPT_FIELD__COUNT];
		uint64_t m = 0;
		int64_t got;

		for (unsigned f = 0; f < BPT_FIELD__COUNT; f++)
			out[f] = (struct bpt_field_out){ .field = f, .data = buf[f] };
		while ((got = bpt_reader_read_fields(r, out, BPT_FIELD__COUNT, 257, &e)) > 0)
			m += (uint64_t)got;
		if ((got < 0) != (rc < 0) || (rc == 0 && m != n))
			abort();
	}
	bpt_reader_rewind(r, &e);
	if (bpt_reader_next(r, &rec, &e) == 1)
		fuzz_check_record(r, &rec);
	bpt_reader_close(r);
	return 0;
}
