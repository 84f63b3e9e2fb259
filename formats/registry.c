/*
 * registry.c — the tables of readers and writers (foreign.h). A new
 * format adds its row here and nothing else changes: convert --list, its
 * man page's FORMATS (made from --list by the Makefile) and the bash
 * completion read these tables. Readers are asked
 * in this order; a tie in detect() scores goes to the earlier row, so a
 * format with a magic number comes before the text formats.
 */
#include <string.h>

#include "foreign.h"

extern const struct ff_reader_ops ff_read_blktrace, ff_read_fio, ff_read_biosnoop, ff_read_systor,
	ff_read_blkparse, ff_read_msr, ff_read_alibaba, ff_read_tencent, ff_read_fiu,
	ff_read_spc, ff_read_vscsi, ff_read_mqsim, ff_read_disksim, ff_read_k5cloud,
	ff_read_iotracer, ff_read_csv;

const struct ff_reader_ops *const ff_readers[] = {
	&ff_read_blktrace,
	&ff_read_fio,
	&ff_read_biosnoop,
	&ff_read_systor,
	&ff_read_blkparse,
	&ff_read_msr,
	&ff_read_alibaba,
	&ff_read_tencent,
	&ff_read_fiu,
	&ff_read_spc,
	&ff_read_k5cloud,
	&ff_read_iotracer,
	&ff_read_mqsim,
	&ff_read_disksim,
	&ff_read_csv,
	/* binary without a magic number: its version bytes (\x01, \x02)
	 * never occur in text, so its place among the text formats is free */
	&ff_read_vscsi,
	NULL,
};
const size_t ff_nreaders = sizeof(ff_readers) / sizeof(ff_readers[0]) - 1;

extern const struct ff_writer_ops ff_write_blktrace, ff_write_fio, ff_write_oracle, ff_write_csvzst;

const struct ff_writer_ops *const ff_writers[] = {
	&ff_write_blktrace,
	&ff_write_fio,
	&ff_write_oracle,
	&ff_write_csvzst,
	NULL,
};
const size_t ff_nwriters = sizeof(ff_writers) / sizeof(ff_writers[0]) - 1;

const struct ff_reader_ops *ff_reader_find(const char *name)
{
	for (size_t i = 0; i < ff_nreaders; i++)
		if (!strcmp(ff_readers[i]->name, name))
			return ff_readers[i];
	return NULL;
}

const struct ff_writer_ops *ff_writer_find(const char *name)
{
	for (size_t i = 0; i < ff_nwriters; i++)
		if (!strcmp(ff_writers[i]->name, name))
			return ff_writers[i];
	return NULL;
}

const struct ff_writer_ops *ff_writer_for_path(const char *out)
{
	size_t lo = strlen(out);

	for (size_t i = 0; i < ff_nwriters; i++)
		for (const char *const *s = ff_writers[i]->suffixes; s && *s; s++) {
			size_t ls = strlen(*s), d = lo;

			/* a suffix ending in '#' ends in one or more digits */
			if (ls && (*s)[ls - 1] == '#') {
				while (d > 0 && out[d - 1] >= '0' && out[d - 1] <= '9')
					d--;
				if (d == lo || d < ls - 1 || strncmp(out + d - (ls - 1), *s, ls - 1))
					continue;
				return ff_writers[i];
			}
			if (lo >= ls && !strcmp(out + lo - ls, *s))
				return ff_writers[i];
		}
	return NULL;
}
