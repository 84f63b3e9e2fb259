/*
 * dbpath.h — where the analysis database is when a command is not told:
 * the one rule that analyze (which opens it) and measure (which stores
 * into it through analyze, and must not write an output over it) share.
 */
#ifndef BLKPEAK_DBPATH_H
#define BLKPEAK_DBPATH_H

/* `opt` (--db) if not NULL, else $BLKPEAK_DB if set and not empty, else
 * "blkpeak.db" (in the current folder). */
const char *db_default_path(const char *opt);

#endif
