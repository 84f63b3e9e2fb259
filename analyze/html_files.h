/*
 * html_files.h — the Files section of the HTML report (html_files.c):
 * charts of the busiest files and directories of each trace of the page.
 */
#ifndef BLKPEAK_ANALYZE_HTML_FILES_H
#define BLKPEAK_ANALYZE_HTML_FILES_H

#include <stdio.h>

#include "compare.h"

/* The section, for the entries of c whose reports name files; nothing
 * when none does. */
void html_files_section(FILE *f, const struct cmp *c);

#endif
