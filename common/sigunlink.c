/* sigunlink.c — remove registered files when a signal ends the process
 * (sigunlink.h). The handler only reads the table; changes to it are made
 * with the signals blocked in the calling thread, and a slot is marked
 * free before its path is overwritten. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sigunlink.h"

#define SIGUNLINK_SLOTS 32 /* outputs not yet in place at once, two paths each */

static const int caught[] = { SIGINT, SIGTERM, SIGHUP };

/* The paths (copies: the caller may free its own before the handler
 * runs in another thread) and the process that registered each: a child
 * forked before its exec shares the table but not the files. */
static struct {
	volatile sig_atomic_t used;
	pid_t owner;
	char path[PATH_MAX];
} slots[SIGUNLINK_SLOTS];

static void block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaddset(&set, caught[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

int sigunlink_add(const char *path)
{
	size_t n = strlen(path);
	sigset_t old;
	int err = -ENOSPC;

	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	block(&old);
	for (int i = 0; i < SIGUNLINK_SLOTS; i++) {
		if (slots[i].used)
			continue;
		memcpy(slots[i].path, path, n + 1);
		slots[i].owner = getpid();
		slots[i].used = 1;
		err = 0;
		break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

void sigunlink_remove(const char *path)
{
	sigset_t old;

	block(&old);
	for (int i = 0; i < SIGUNLINK_SLOTS; i++)
		if (slots[i].used && !strcmp(slots[i].path, path))
			slots[i].used = 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void on_signal(int sig)
{
	int saved = errno;
	pid_t self = getpid();

	for (int i = 0; i < SIGUNLINK_SLOTS; i++)
		if (slots[i].used && slots[i].owner == self)
			unlink(slots[i].path);
	errno = saved;
	signal(sig, SIG_DFL);
	raise(sig);
}

void sigunlink_catch_signals(void)
{
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		struct sigaction old, sa = { 0 };

		if (sigaction(caught[i], NULL, &old) || old.sa_handler != SIG_DFL)
			continue; /* ignored (nohup) or someone else's */
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t j = 0; j < sizeof(caught) / sizeof(caught[0]); j++)
			sigaddset(&sa.sa_mask, caught[j]);
		sigaction(caught[i], &sa, NULL);
	}
}
