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

/* `value` (a --db value) without its password, into buf (len >= 1):
 * ":PASSWORD@" of a postgresql:// URI and password=... (a key=value pair
 * or a URI parameter) are cut or shown as "password=***". For every
 * message or command line that shows a --db value. Returns buf. */
const char *db_redact(const char *value, char *buf, size_t len);

#endif
