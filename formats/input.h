/*
 * input.h — one input file as a stream of decompressed bytes and lines.
 *
 * The compression is found from the first bytes, not the name: gzip
 * (1f 8b), bzip2 ("BZh"), xz (fd "7zXZ" 00) and zstd (28 b5 2f fd) are
 * decompressed on the fly (zlib, libbz2, liblzma, libzstd); anything else
 * is read as it is. Concatenated streams (pigz, pbzip2, zstd -T) are read
 * to their end. Memory is a few fixed buffers whatever the file's size.
 *
 * Lines: "\n" or "\r\n" ends a line; a last line without one is a line.
 * A line longer than FF_LINE_MAX is an error (a binary file read as text).
 */
#ifndef FORMATS_INPUT_H
#define FORMATS_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

#define FF_LINE_MAX (1u << 20)

struct ff_input;

/* Open path (a regular file: anything else is refused, naming what it
 * is) and find its compression. */
int ff_input_open(struct ff_input **out, const char *path, struct bpt_error *err);
void ff_input_close(struct ff_input *in);

/* The first up to `want` decompressed bytes, without consuming them
 * (want <= 65536). *len may be less at the end of the input. */
int ff_input_peek(struct ff_input *in, size_t want, const char **head, size_t *len,
		  struct bpt_error *err);
/* Up to len bytes; returns the count, 0 at the end, or <0 (err set). */
ssize_t ff_input_read(struct ff_input *in, void *buf, size_t len, struct bpt_error *err);
/* Next line (see above): 1 with *line (NUL-terminated, writable until the
 * next call) and *len, 0 at the end, <0 on error. */
int ff_input_line(struct ff_input *in, char **line, size_t *len, struct bpt_error *err);
/* Back to the first byte (restarts the decompressor). */
int ff_input_rewind(struct ff_input *in, struct bpt_error *err);

/* "gzip", "bzip2", "xz", "zstd" or "none". */
const char *ff_input_compression(const struct ff_input *in);
/* Decompressed bytes consumed so far; compressed bytes read so far and
 * the file's size (for progress). */
uint64_t ff_input_offset(const struct ff_input *in);
uint64_t ff_input_file_pos(const struct ff_input *in);
uint64_t ff_input_file_size(const struct ff_input *in);

#endif
