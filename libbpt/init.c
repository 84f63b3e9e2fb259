/*
 * init.c — libbpt reads the foreign trace formats behind the .bpt reader
 * calls: when the library is loaded, bpt_reader_open() is given formats/'
 * opener, as blkpeak's main gives it (bpt.h, "records from elsewhere"), so
 * a program linked with libbpt opens an MSR CSV or a blktrace set as it
 * opens a .bpt file. Only in the library: blkpeak itself does not link
 * this file.
 *
 * libbpt_foreign_formats is what pulls this file out of libbpt.a in a
 * static link (libbpt.pc's Libs.private names it with -u); the shared
 * library runs the constructor when it is loaded.
 */
#include "bpt.h"
#include "commands.h"

void libbpt_foreign_formats(void);

__attribute__((constructor)) void libbpt_foreign_formats(void)
{
	bpt_reader_set_foreign_opener(formats_reader_open);
}
