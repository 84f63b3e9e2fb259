/*
 * store.c — measure_store() (measure.h): a results document into
 * analyze's database, as `blkpeak analyze import` would store it, for
 * every kind of measurement (knee included).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cliutil.h"
#include "commands.h"
#include "measure.h"

int measure_store(const char *cmd, const char *db, const char *written,
		  void (*print)(FILE *f, const void *arg), const void *arg)
{
	char tmp[300];
	const char *t = getenv("TMPDIR"), *path = written;
	struct bpt_error err = { 0 };
	FILE *f;
	int rc, fd = -1;

	if (!path) { /* a temporary document for the store, removed after */
		snprintf(tmp, sizeof(tmp), "%s/blkpeak-measure-XXXXXX.json", t && *t ? t : "/var/tmp");
		fd = mkstemps(tmp, 5);
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			pr_err("%s: %s: %s", cmd, tmp, strerror(errno));
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
			return EXIT_FAIL;
		}
		print(f, arg);
		if (fflush(f) || ferror(f)) {
			pr_err("%s: %s: cannot write: %s", cmd, tmp, strerror(errno));
			fclose(f);
			unlink(tmp);
			return EXIT_FAIL;
		}
		fclose(f);
		path = tmp;
	}
	rc = analyze_store_measurement(db, path, NULL, &err);
	if (rc)
		pr_err("%s: %s", cmd, err.msg);
	if (!written)
		unlink(tmp);
	return rc ? EXIT_FAIL : EXIT_OK;
}
