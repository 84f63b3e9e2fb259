/*
 * cpu_pin.h — a CPU of its own for the issuing thread of a timed replay.
 *
 * cpu_pin_plan picks the highest CPU the process may use (when it may use
 * two or more) and moves the calling thread off it, so the threads it
 * starts next (result writer, trace reader, an engine's helper) inherit a
 * mask without it; cpu_pin_issuer then moves the calling thread onto that
 * CPU alone, and cpu_pin_restore gives it its first mask back. The issuer
 * then shares its CPU with no thread of replay and is never migrated.
 * Each step is best effort: a failure (a cpuset that changed, one CPU)
 * leaves the thread where it was.
 */
#ifndef BLKPEAK_CPU_PIN_H
#define BLKPEAK_CPU_PIN_H

#include <sched.h>

struct cpu_pin {
	cpu_set_t orig;  /* the thread's mask before cpu_pin_plan */
	cpu_set_t rest;  /* orig without the issuer's CPU */
	int cpu;         /* the issuer's CPU, -1: none */
};

/* Choose the issuer's CPU and move the calling thread off it. */
void cpu_pin_plan(struct cpu_pin *p);
/* Put the calling thread on the issuer's CPU alone (nothing when none). */
void cpu_pin_issuer(const struct cpu_pin *p);
/* Give the calling thread its mask from before cpu_pin_plan. */
void cpu_pin_restore(const struct cpu_pin *p);

#endif
