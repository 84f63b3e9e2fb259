/*
 * bpt_coltest.h — the round trip of one column (lib/bpt_column.c,
 * lib/bpt_coltick.c) shared by the codec's unit tests.
 */
#ifndef BPT_COLTEST_H
#define BPT_COLTEST_H
#include <stdint.h>

/* Encode v[0..n) (as a time column when `time`: the tick kind may take
 * it), parse, decode in uneven chunks and compare; one byte more or less
 * must be refused. Returns the kind written. */
int tu_col_roundtrip(const uint64_t *v, uint32_t n, int time);
/* The same as a time column that starts from (and updates) `hint`, as a
 * writer's next block does; NULL: not a time column. */
struct bpt_tick_hint;
int tu_col_roundtrip_hint(const uint64_t *v, uint32_t n, struct bpt_tick_hint *hint);
#endif
