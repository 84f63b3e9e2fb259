/*
 * tp_attach.c — load a BPF object, attach every program in it, print
 * "attached N" on standard error and wait for SIGINT or SIGTERM; then
 * detach and exit 0. bench/bench-capture.sh runs
 * build/bench/empty_tp.bpf.o with it: the cost of programs that do
 * nothing on capture's tracepoints.
 *
 * usage: tp_attach OBJECT.bpf.o
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct sigaction sa = { .sa_handler = on_signal };
	int n = 0, err;

	if (argc != 2) {
		fprintf(stderr, "usage: tp_attach OBJECT.bpf.o\n");
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	obj = bpf_object__open_file(argv[1], NULL);
	err = libbpf_get_error(obj);
	if (err) {
		fprintf(stderr, "tp_attach: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "tp_attach: %s: load: %s\n", argv[1], strerror(-err));
		bpf_object__close(obj);
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		struct bpf_link *link = bpf_program__attach(prog);

		err = libbpf_get_error(link);
		if (err) {
			fprintf(stderr, "tp_attach: %s: attach %s: %s\n", argv[1],
				bpf_program__name(prog), strerror(-err));
			bpf_object__close(obj);
			return 1;
		}
		n++; /* the links are freed with the process */
	}
	fprintf(stderr, "attached %d\n", n);
	while (!stop)
		pause();
	bpf_object__close(obj);
	return 0;
}
