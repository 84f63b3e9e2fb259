/*
 * replay_noring.c — for tests/e2e/36-replay-engine.sh: run a command with
 * io_uring_setup failing with a given errno, by a seccomp filter, as a
 * container runtime's filter (EPERM) or a kernel without io_uring
 * (ENOSYS) would. Only this process and its children are affected.
 *
 * usage: replay_noring ERRNO CMD [ARG...]
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: replay_noring ERRNO CMD...\n");
		return 2;
	}
	unsigned err = (unsigned)atoi(argv[1]);
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("replay_noring: seccomp");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
