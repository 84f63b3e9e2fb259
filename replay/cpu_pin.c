/* cpu_pin.c — a CPU of its own for the issuing thread (cpu_pin.h). */
#include "cpu_pin.h"

void cpu_pin_plan(struct cpu_pin *p)
{
	p->cpu = -1;
	if (sched_getaffinity(0, sizeof(p->orig), &p->orig) || CPU_COUNT(&p->orig) < 2)
		return;
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &p->orig)) {
			p->cpu = c;
			break;
		}
	p->rest = p->orig;
	CPU_CLR(p->cpu, &p->rest);
	if (sched_setaffinity(0, sizeof(p->rest), &p->rest))
		p->cpu = -1;
}

void cpu_pin_issuer(const struct cpu_pin *p)
{
	cpu_set_t one;

	if (p->cpu < 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(p->cpu, &one);
	(void)sched_setaffinity(0, sizeof(one), &one);
}

void cpu_pin_restore(const struct cpu_pin *p)
{
	if (p->cpu >= 0)
		(void)sched_setaffinity(0, sizeof(p->orig), &p->orig);
}
