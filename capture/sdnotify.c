/*
 * sdnotify.c — tell systemd that the capture is recording (Type=notify).
 *
 * blkpeak-boot.service starts the capture early in the boot and orders
 * itself before the local file systems; with Type=notify systemd holds
 * those back until the BPF programs are attached, so their mounts, fsck
 * and journal replay are in the trace. The protocol is one datagram,
 * "READY=1", to the unix socket named by $NOTIFY_SOCKET (sd_notify(3));
 * a name starting with '@' is in the abstract namespace. Written here
 * rather than linked from libsystemd: it is these few lines, and the
 * binary keeps working where libsystemd is absent.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "capture.h"

int capture_notify_ready(void)
{
	static const char msg[] = "READY=1";
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	ssize_t n;
	int fd, err = 0;

	if (!path || !*path)
		return 0;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
	if (n < 0)
		err = -errno;
	close(fd);
	/* a command run under the capture is not the service's main process */
	unsetenv("NOTIFY_SOCKET");
	return err;
}
